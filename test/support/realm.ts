/** Seeds an organization with one user of each role, a second member and a bot. */
import { doCreateRealm } from "../../src/actions/realms.js";
import { doCreateUser } from "../../src/actions/users-create.js";
import type { AppContext } from "../../src/context.js";
import type { Realm, User } from "../../src/db/schema.js";
import { BotType, Role } from "../../src/lib/roles.js";
import { realmHost } from "../../src/lib/realm-host.js";

export const OWNER_PASSWORD = "correct horse battery staple";

export interface SeededRealm {
  realm: Realm;
  host: string;
  owner: User;
  admin: User;
  moderator: User;
  member: User;
  /** A second member, for conversations. */
  other: User;
  guest: User;
  /** A generic bot owned by `member`. */
  bot: User;
}

export async function seedRealm(ctx: AppContext, subdomain: string, name: string): Promise<SeededRealm> {
  const domain = subdomain ? `${subdomain}.example.com` : "example.com";
  const { realm, owner } = await doCreateRealm(ctx, {
    name,
    subdomain,
    ownerEmail: `owner@${domain}`,
    ownerName: "Olivia Owner",
    ownerPassword: OWNER_PASSWORD,
  });
  const make = (local: string, fullName: string, role: number) =>
    doCreateUser(ctx, realm, { email: `${local}@${domain}`, fullName, password: null, role });
  const admin = await make("admin", "Adam Admin", Role.ADMINISTRATOR);
  const moderator = await make("moderator", "Mona Moderator", Role.MODERATOR);
  const member = await make("member", "Mary Member", Role.MEMBER);
  const other = await make("other", "Otto Other", Role.MEMBER);
  const guest = await make("guest", "Gus Guest", Role.GUEST);
  const bot = await doCreateUser(ctx, realm, {
    email: `helper-bot@${domain}`,
    fullName: "Helper Bot",
    password: null,
    role: Role.MEMBER,
    isBot: true,
    botType: BotType.GENERIC,
    botOwnerId: member.id,
  });
  return { realm, host: realmHost(subdomain, ctx.config.externalHost), owner, admin, moderator, member, other, guest, bot };
}
