// Outgoing e-mail. With SMTP_URL a message is sent through nodemailer; every message is recorded in
// `email_outbox` in the caller's transaction (sent, failed with the error, or `recorded` when no SMTP
// server is configured). Logs name the recipient and subject, never the body (it holds links with
// secrets); the outbox is readable by the system context only.
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { Tx } from '../db/request-db.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** What became of a message: sent, failed (with the SMTP error) or only recorded (no SMTP_URL). */
export interface Delivery {
  status: 'sent' | 'failed' | 'recorded';
  error: string | null;
}

/** A link of an e-mail: `path` under the front end that opens it (Config.mail.linkBase: APP_URL, else the console). */
export function appLink(options: { linkBase: string }, path: string): string {
  return `${options.linkBase}${path}`;
}

export interface Mailer {
  /** Sends (with SMTP) and records a message in `tx`; true when the SMTP server accepted it. */
  send(tx: Tx, mail: Mail): Promise<boolean>;
  /** Sends a message (with SMTP) outside any transaction; record it afterwards. */
  deliver(mail: Mail): Promise<Delivery>;
  /** Records a delivered message in `tx` (and logs its fate); true when it was sent. */
  record(tx: Tx, mail: Mail, delivery: Delivery): Promise<boolean>;
}

export function createMailer(options: { smtpUrl: string | undefined; from: string }, logger: Logger): Mailer {
  const transport: Transporter | null = options.smtpUrl ? nodemailer.createTransport(options.smtpUrl) : null;

  async function deliver(mail: Mail): Promise<Delivery> {
    if (!transport) return { status: 'recorded', error: null };
    try {
      await transport.sendMail({ from: options.from, to: mail.to, subject: mail.subject, text: mail.text });
      return { status: 'sent', error: null };
    } catch (error) {
      return { status: 'failed', error: (error instanceof Error ? error.message : String(error)).slice(0, 1000) };
    }
  }

  async function record(tx: Tx, mail: Mail, { status, error }: Delivery): Promise<boolean> {
    // createMany: no RETURNING, so requests need no read access to the outbox.
    await tx.emailOutbox.createMany({
      data: [{ recipient: mail.to, subject: mail.subject, body: mail.text, status, error, sentAt: status === 'sent' ? new Date() : null }],
    });
    const facts = { to: mail.to, subject: mail.subject };
    if (status === 'failed') logger.warn({ ...facts, error }, 'e-mail not sent');
    else logger.info(facts, status === 'sent' ? 'e-mail sent' : 'e-mail recorded (no SMTP_URL configured)');
    return status === 'sent';
  }

  return {
    send: async (tx, mail) => record(tx, mail, await deliver(mail)),
    deliver,
    record,
  };
}
