/**
 * THE route table. Each family's view file exports its `routes`; add the family here.
 */
import type { RouteDef } from "./route.js";
import { routes as authRoutes } from "./views/auth.js";

export const allRoutes: RouteDef[] = [
  ...authRoutes,
];
