import { z } from 'zod';
import { EmailSchema } from './account.js';
import { EARLY_ACCESS_PRODUCTS } from './payments.js';

/** A phone number in E.164 form (`+` and 8 to 15 digits); spaces, dots, dashes and brackets are ignored. */
export const PhoneSchema = z
  .string()
  .max(32)
  .transform((value) => value.replace(/[\s.()-]/g, ''))
  .pipe(z.string().regex(/^\+[1-9]\d{7,14}$/, 'must be an E.164 number such as +14155550123'));

/** The contact a code goes to: an e-mail or a phone number, exactly one. */
const ContactFields = {
  product: z.enum(EARLY_ACCESS_PRODUCTS),
  email: EmailSchema.optional(),
  phone: PhoneSchema.optional(),
};

const oneContact = (value: { email?: string | undefined; phone?: string | undefined }) =>
  (value.email === undefined) !== (value.phone === undefined);
const ONE_CONTACT = { message: 'send exactly one of email or phone', path: ['email'] };

/** POST /v1/waitlist/request */
export const WaitlistRequestSchema = z.looseObject(ContactFields).refine(oneContact, ONE_CONTACT);

/** A parsed waitlist request. */
export type WaitlistRequest = z.output<typeof WaitlistRequestSchema>;

/** POST /v1/waitlist/verify */
export const WaitlistVerifySchema = z
  .looseObject({ ...ContactFields, code: z.string().regex(/^\d{6}$/, 'must be the 6-digit code') })
  .refine(oneContact, ONE_CONTACT);

/** A parsed waitlist verification. */
export type WaitlistVerify = z.output<typeof WaitlistVerifySchema>;

/** The answer to a waitlist request: the same whether or not the contact is known. */
export const WaitlistCodeSentObjectSchema = z.strictObject({
  object: z.literal('waitlist.code'),
  product: z.enum(EARLY_ACCESS_PRODUCTS),
  channel: z.enum(['email', 'sms']),
  expires_at: z.number().int(),
});

/** A sent code on the wire. */
export type WaitlistCodeSentObject = z.output<typeof WaitlistCodeSentObjectSchema>;

/** A confirmed sign-up. */
export const WaitlistSignupObjectSchema = z.strictObject({
  object: z.literal('waitlist.signup'),
  product: z.enum(EARLY_ACCESS_PRODUCTS),
  channel: z.enum(['email', 'sms']),
  /** The contact, masked (`a…@example.com`, `+1…0123`). */
  contact: z.string(),
  status: z.literal('confirmed'),
  confirmed_at: z.number().int(),
});

/** A sign-up on the wire. */
export type WaitlistSignupObject = z.output<typeof WaitlistSignupObjectSchema>;
