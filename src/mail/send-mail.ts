/**
 * Outgoing mail. With PARLEY_SMTP_URL the message goes out through nodemailer's SMTP
 * transport; without it, or when the SMTP server refuses it, the complete message is
 * written as an .eml file to {PARLEY_DATA_DIR}/outbox, so no mail is ever dropped silently.
 */
import nodemailer from "nodemailer";
import type { Config } from "../config.js";
import { writeToOutbox } from "./outbox.js";

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** Where a mail ended up: "smtp", or the path of the outbox file. */
export type MailOutcome = { via: "smtp" } | { via: "outbox"; path: string };

type Log = { error(obj: unknown, msg: string): void } | undefined;

export async function sendMail(config: Config, mail: OutgoingMail, log?: Log): Promise<MailOutcome> {
  const message = { from: config.mailFrom, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html };
  if (config.smtpUrl !== undefined) {
    try {
      await nodemailer.createTransport(config.smtpUrl).sendMail(message);
      return { via: "smtp" };
    } catch (err) {
      log?.error({ err }, "SMTP delivery failed; the mail is kept in the outbox");
    }
  }
  const built = await nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" }).sendMail(message);
  const path = await writeToOutbox(config.dataDir, built.message as Buffer);
  return { via: "outbox", path };
}
