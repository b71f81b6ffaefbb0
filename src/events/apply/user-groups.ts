/**
 * realm_user_groups on /register state: upstream's `user_group` events (role changes
 * and new users arrive as add_members / remove_members on system groups).
 */

type State = Record<string, any>;
type Event = Record<string, any>;

const sorted = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);

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

/**
 * A deactivated user leaves the members of every named group as clients see them (the
 * realm_user update is the news; upstream sends no remove_members to users who can see
 * the deactivated user). Anonymous groups behind setting values keep them.
 */
export function dropDeactivatedUserFromGroups(state: State, userId: number): void {
  const groups = state.realm_user_groups as any[] | undefined;
  if (!groups) return;
  for (const g of groups) g.members = (g.members as number[]).filter((id) => id !== userId);
}
