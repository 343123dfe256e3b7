/** The signed-in owner's choice of notification mail: `GET`/`PUT /cabinet/v1/account/notifications`. */
import { Type } from '@sinclair/typebox';
import type { CabinetDeps } from '../../cabinet/context.js';
import { sessionOf } from '../../cabinet/context.js';
import { errorResponses } from '../../http/schemas.js';
import type { ApiServer } from '../../http/server.js';
import { chooseNotifications, notificationsOf } from '../service.js';

export const NotificationsSchema = Type.Object(
  {
    exceptions: Type.Boolean({
      description: 'A mail for each new exception of your merchants (underpaid, overpaid, paid late, another token)',
    }),
    payouts_in_review: Type.Boolean({
      description: "A mail for each payout of your merchants that waits for the operator's review",
    }),
  },
  { additionalProperties: false, title: 'Notifications' },
);

const MAIL_NOTE =
  'Both are on until the owner turns them off. Mail is sent only when the operator configured it (SMTP_URL and MAIL_FROM); without it the choice is kept and nothing is sent.';

export async function mailCabinetRoutes(app: ApiServer, deps: CabinetDeps): Promise<void> {
  const { db, clock } = deps.services;

  app.get(
    '/cabinet/v1/account/notifications',
    {
      schema: {
        operationId: 'getNotifications',
        tags: ['account'],
        summary: 'Which mail this owner gets',
        description: MAIL_NOTE,
        response: { 200: NotificationsSchema, ...errorResponses(401, 429) },
      },
    },
    async (req) => notificationsOf(db, sessionOf(req).owner.id),
  );

  app.put(
    '/cabinet/v1/account/notifications',
    {
      schema: {
        operationId: 'setNotifications',
        tags: ['account'],
        summary: 'Choose which mail this owner gets',
        description: `Both fields, each true or false; the choice applies to the next mail. ${MAIL_NOTE}`,
        body: NotificationsSchema,
        response: { 200: NotificationsSchema, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (req) => chooseNotifications({ db, clock }, sessionOf(req).owner.id, req.body),
  );
}
