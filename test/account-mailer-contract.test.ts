import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BackgroundTasks } from '../actors/accounts/background-tasks.js';
import type { Mailer } from '../backends/mailer.js';
import { RecordingMailer } from '../backends/mail/recording-mailer.js';
import { SmtpMailer } from '../backends/mail/smtp-mailer.js';
import { createLogger } from '../runtime/logger.js';
import { SmtpInbox } from './doubles/smtp-inbox.js';

const LINK = `https://app.svc.test/account/reset-password?token=pwr_${'A1b2C3d4'.repeat(6)}`;
const MESSAGE = {
  to: 'reader@example.com',
  subject: 'Reset your svc password',
  text: `Set a new password here:\n${LINK}\n\nThanks.`,
  kind: 'password_reset',
};

/** One contract for every Mailer: what is sent arrives whole (long links included), with its kind. */
function contract(
  name: string,
  make: () => Promise<{
    mailer: Mailer;
    received: () => Promise<{ to: string; subject: string; text: string }>;
    close: () => Promise<void>;
  }>,
) {
  const test = suite(`mailer contract: ${name}`);
  test('a message arrives whole: recipient, subject, text with its long link', async () => {
    const { mailer, received, close } = await make();
    try {
      const receipt = await mailer.send(MESSAGE);
      assert.ok(receipt.messageId);
      const got = await received();
      assert.is(got.to, MESSAGE.to);
      assert.is(got.subject, MESSAGE.subject);
      assert.is(got.text, MESSAGE.text);
    } finally {
      await mailer.close();
      await close();
    }
  });
  test.run();
}

contract('RecordingMailer', () => {
  const mailer = new RecordingMailer();
  return Promise.resolve({
    mailer,
    received: () => Promise.resolve(mailer.messages('reader@example.com')[0]!),
    close: () => Promise.resolve(),
  });
});

contract('SmtpMailer against a real SMTP server on loopback', async () => {
  const inbox = await SmtpInbox.start();
  const mailer = new SmtpMailer(inbox.url, 'svc <no-reply@svc.test>');
  return {
    mailer,
    received: async () => {
      const mail = await inbox.waitFor(() => true);
      assert.is(mail.headers['x-svc-mail'], 'password_reset');
      return { to: mail.to[0]!, subject: mail.subject, text: mail.text };
    },
    close: () => inbox.close(),
  };
});

const failing = suite('mailer: a delivery that fails is logged without its body or address');
failing('an unreachable SMTP server rejects the send; the background task logs the reason only', async () => {
  const inbox = await SmtpInbox.start();
  const url = inbox.url;
  await inbox.close();
  const mailer = new SmtpMailer(url, 'svc <no-reply@svc.test>', { timeoutMs: 2000 });
  const lines: string[] = [];
  const background = new BackgroundTasks(createLogger('debug', (line) => lines.push(line)));
  background.run('password reset mail', { account_id: 'acct_1' }, async () => void (await mailer.send(MESSAGE)));
  await background.settled();
  await mailer.close();
  assert.is(lines.length, 1);
  assert.match(lines[0]!, /password reset mail failed/);
  assert.match(lines[0]!, /acct_1/);
  assert.not.match(lines[0]!, /pwr_|reader@example\.com/);
});
failing.run();

const tasks = suite('background tasks: a delivery starts only after the answer that asked for it');
tasks('a task does not run in the turn that started it, and settled() waits for it', async () => {
  const background = new BackgroundTasks(createLogger('silent'));
  const order: string[] = [];
  background.run('mail', {}, () => {
    order.push('task');
    return Promise.resolve();
  });
  order.push('answer written');
  await Promise.resolve();
  order.push('microtasks drained');
  await background.settled();
  assert.equal(order, ['answer written', 'microtasks drained', 'task']);
});
tasks.run();
