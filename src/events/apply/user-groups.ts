/**
 * realm_user_groups on /register state: upstream's `user_group` events, plus the
 * system-group memberships that follow a user's role (a new user joins the groups of
 * their role; a role change moves them), which the state derives from `realm_user`
 * events.
 */
import { directSystemGroupsForRole } from "../../lib/system-groups.js";

type State = Record<string, any>;
type Event = Record<string, any>;

const sorted = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);

/** Puts the user in exactly the system groups of their role. */
export function applyRoleToSystemGroups(state: State, userId: number, role: number): void {
  if (!Array.isArray(state.realm_user_groups)) return;
  const names = new Set<string>(directSystemGroupsForRole(role));
  for (const group of state.realm_user_groups) {
    if (!group.is_system_group) continue;
    const others = (group.members as number[]).filter((id) => id !== userId);
    group.members = names.has(group.name) ? sorted([...others, userId]) : others;
  }
}

export function applyUserGroup(state: State, e: Event): void {
  const groups = state.realm_user_groups as any[] | undefined;
  if (!groups) return;
  const group = groups.find((g) => g.id === e.group_id);
  switch (e.op) {
    case "add":
      groups.push(e.group);
      groups.sort((a, b) => a.id - b.id);
      break;
    case "update":
      if (group) Object.assign(group, e.data);
      break;
    case "add_members":
      if (group) group.members = sorted([...group.members, ...e.user_ids]);
      break;
    case "remove_members":
      if (group) group.members = (group.members as number[]).filter((id) => !e.user_ids.includes(id));
      break;
    case "add_subgroups":
      if (group) group.direct_subgroup_ids = sorted([...group.direct_subgroup_ids, ...e.direct_subgroup_ids]);
      break;
    case "remove_subgroups":
      if (group) group.direct_subgroup_ids = (group.direct_subgroup_ids as number[]).filter((id) => !e.direct_subgroup_ids.includes(id));
      break;
    case "remove":
      state.realm_user_groups = groups.filter((g) => g.id !== e.group_id);
      break;
  }
}
