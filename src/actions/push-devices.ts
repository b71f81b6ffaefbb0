/**
 * Push-device registration (spec 4.14). The request is stored as pending and answered
 * with success, as upstream; Parley is its own push relay, so the registration is then
 * opened and validated at once, and the outcome reaches the user's clients as a
 * `push_device` event (status active, or failed with an error code) and in /register.
 */
import type { AppContext } from "../context.js";
import { nowSeconds } from "../context.js";
import type { User } from "../db/schema.js";
import { withTransaction } from "../db/tx.js";
import { findPushDevice, setPushDeviceOutcome, upsertPendingPushDevice, type PushDeviceRequest } from "../db/queries/push-devices.js";
import { sendEventOnCommit } from "../events/send.js";
import { openPushRegistration } from "../lib/push-registration.js";

export async function doRegisterPushDevice(ctx: AppContext, user: User, pushAccountId: number, req: PushDeviceRequest): Promise<void> {
  const queued = await withTransaction(ctx.db, async (tx) => {
    const existing = await findPushDevice(tx, user.realm_id, user.id, pushAccountId);
    // Upstream: a registration without an error stands, whatever the new request says.
    if (existing && existing.error_code === null) return false;
    await upsertPendingPushDevice(tx, user.realm_id, user.id, pushAccountId, req, nowSeconds(ctx));
    return true;
  });
  if (!queued) return;
  const outcome = await openPushRegistration(ctx.config.pushRelayKeys, req.bouncer_public_key, req.encrypted_push_registration, nowSeconds(ctx));
  await withTransaction(ctx.db, async (tx) => {
    const id = String(pushAccountId);
    if (outcome.ok) {
      const r = outcome.registration;
      await setPushDeviceOutcome(tx, user.realm_id, user.id, pushAccountId, { status: "active", token: r.token, ios_app_id: r.iosAppId });
      sendEventOnCommit(tx, ctx, user.realm_id, { type: "push_device", push_account_id: id, status: "active" }, [user.id]);
    } else {
      await setPushDeviceOutcome(tx, user.realm_id, user.id, pushAccountId, { status: "failed", error_code: outcome.errorCode });
      sendEventOnCommit(tx, ctx, user.realm_id, { type: "push_device", push_account_id: id, status: "failed", error_code: outcome.errorCode }, [user.id]);
    }
  });
}
