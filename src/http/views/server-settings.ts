/** GET /api/v1/server_settings: what a client needs before logging in (unauthenticated). */
import type { FastifyRequest } from "fastify";
import type { AppContext } from "../../context.js";
import { pushServiceConfigured } from "../../config.js";
import { ApiError } from "../../errors.js";
import { realmHasWebPublicChannel } from "../../db/queries/server-settings.js";
import { defaultRealmIconUrl } from "../../lib/avatar.js";
import { renderMarkdownValue } from "../../lib/custom-profile-fields.js";
import { CHAT_FEATURE_LEVEL, CHAT_MERGE_BASE, CHAT_VERSION } from "../../lib/server-version.js";
import { realmUrl } from "../../lib/realm-host.js";
import { userAgentProduct } from "../../lib/user-agent.js";
import type { ApiRequest, ViewResult } from "../request.js";
import { publicRoute } from "../route.js";
import { cachedFields } from "../response.js";

/** Client products (User-Agent product names) this server refuses to work with. */
const INCOMPATIBLE_CLIENTS = new Set(["ParleyInvalid"]);

function isIncompatible(userAgent: string | undefined): boolean {
  return INCOMPATIBLE_CLIENTS.has(userAgentProduct(userAgent));
}

/**
 * The realm description as HTML. An empty description stays empty (upstream substitutes a
 * joke default; a neutral server says nothing).
 */
function renderDescription(description: string, url: string): string {
  return description.trim() === "" ? "" : renderMarkdownValue(description, url);
}

/** The fields that do not depend on an organization. */
function serverFields(ctx: AppContext, raw: FastifyRequest) {
  return {
    authentication_methods: {
      password: true,
      dev: false,
      email: true,
      ldap: false,
      remoteuser: false,
      github: false,
      azuread: false,
      gitlab: false,
      google: false,
      apple: false,
      saml: false,
      "openid connect": false,
    },
    chat_version: CHAT_VERSION,
    chat_merge_base: CHAT_MERGE_BASE,
    chat_feature_level: CHAT_FEATURE_LEVEL,
    push_notifications_enabled: pushServiceConfigured(ctx.config),
    is_incompatible: isIncompatible(raw.headers["user-agent"]),
    email_auth_enabled: true,
    require_email_format_usernames: true,
  };
}

/** GET /api/v1/server_settings: cached per realm (src/caches/server-settings.ts). */
async function getServerSettings(req: ApiRequest): Promise<ViewResult> {
  const incompatible = isIncompatible(req.raw.headers["user-agent"]);
  const variant = { incompatible, push: pushServiceConfigured(req.ctx.config) };
  const json = await req.ctx.caches.serverSettings.fields(req.realm.id, variant, async () => {
    const fields = JSON.stringify(await realmServerSettings(req));
    return fields.slice(1, -1);
  });
  return cachedFields(json);
}

async function realmServerSettings(req: ApiRequest): Promise<ViewResult> {
  const realm = req.realm;
  const url = realmUrl(realm.string_id, req.ctx.config.externalHost);
  return {
    ...serverFields(req.ctx, req.raw),
    realm_url: url,
    realm_uri: url,
    realm_name: realm.name,
    realm_icon: realm.icon_url ?? defaultRealmIconUrl(realm.string_id),
    realm_description: renderDescription(realm.description, url),
    realm_web_public_access_enabled: realm.enable_spectator_access === 1 && (await realmHasWebPublicChannel(req.ctx.db, realm.id)),
    external_authentication_methods: [],
  };
}

/**
 * The root domain of a server with no default organization (e.g. before create-realm): as
 * upstream, a success without the organization's name, icon and description, whose
 * realm_url is the root domain's.
 */
async function getRootServerSettings(ctx: AppContext, raw: FastifyRequest): Promise<ViewResult> {
  const url = realmUrl("", ctx.config.externalHost);
  return {
    ...serverFields(ctx, raw),
    realm_url: url,
    realm_uri: url,
    realm_web_public_access_enabled: false,
    external_authentication_methods: [],
  };
}

// Upstream answers an unknown subdomain here with a plain 400, unlike fetch_api_key's 404.
export const routes = [
  publicRoute("GET", "/server_settings", getServerSettings, "none", {
    unknownRealmError: () => new ApiError("Invalid subdomain"),
    rootWithoutRealm: getRootServerSettings,
  }),
];
