import type { EarlyAccessProduct } from '../../protocols/payments.js';

const PRODUCT_NAMES: Record<EarlyAccessProduct, string> = {
  marketplace: 'the svc marketplace',
  'ai-companies': 'svc AI companies',
};

/** The code message (mail subject and text, or the SMS text). */
export function codeMessage(
  product: EarlyAccessProduct,
  code: string,
  ttlMs: number,
): { subject: string; text: string } {
  const minutes = Math.round(ttlMs / 60_000);
  return {
    subject: `Your svc waitlist code: ${code}`,
    text: `Your code to join the waitlist for ${PRODUCT_NAMES[product]} is ${code}. It expires in ${minutes} minutes. If you did not ask for it, ignore this message.`,
  };
}

/** The short confirmation once the code is verified. */
export function confirmationMessage(product: EarlyAccessProduct): { subject: string; text: string } {
  return {
    subject: `You are on the svc waitlist for ${PRODUCT_NAMES[product]}`,
    text: `You are on the waitlist for ${PRODUCT_NAMES[product]}. We will let you know when your access opens.`,
  };
}

/** A contact as shown back: `a…@example.com`, `+1…0123`. */
export function maskContact(contact: string): string {
  const at = contact.indexOf('@');
  if (at > 0) return `${contact[0]}…${contact.slice(at)}`;
  return `${contact.slice(0, 2)}…${contact.slice(-4)}`;
}
