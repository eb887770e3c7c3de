import * as z from 'zod';
import { anId, timestamp } from '../core/shapes.js';

/** A message kept in an organization's outbox (lib/mail). */
export const outboxMailResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      to: z.string(),
      subject: z.string(),
      text: z.string(),
      link: z.string().meta({ description: 'The link the message carries (an invitation or a password reset): a secret, for the person it was meant for' }),
      sentAt: timestamp,
    })
    .meta({ id: 'OutboxMail' }),
);
