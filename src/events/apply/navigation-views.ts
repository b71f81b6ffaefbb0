/** `navigation_view` events on /register's navigation_views list. */
export function applyNavigationView(state: Record<string, any>, e: Record<string, any>): void {
  const views: any[] | undefined = state.navigation_views;
  if (!views) return;
  if (e.op === "add") views.push(e.navigation_view);
  else if (e.op === "update") Object.assign(views.find((v) => v.fragment === e.fragment) ?? {}, e.data);
  else if (e.op === "remove") state.navigation_views = views.filter((v) => v.fragment !== e.fragment);
}
