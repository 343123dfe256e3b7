/** The merchant's people: owners list them, invite viewers and remove them (or leave themselves). */
import { Type } from '@sinclair/typebox';
import { cabinetUrl } from '../../config.js';
import { errorResponses, StringEnum, Uuid } from '../../http/schemas.js';
import type { ApiServer } from '../../http/server.js';
import { sessionOf, type CabinetDeps } from '../context.js';
import { inviteViewer, listMembers, removeMember } from '../members.js';
import { ownedMerchantOf } from '../ownership.js';
import { MemberRoleSchema, MerchantParams } from '../schema.js';

const MemberSchema = Type.Object(
  {
    account_id: Uuid('Account id'),
    email: Type.String(),
    role: MemberRoleSchema,
    status: StringEnum(['setup_pending', 'active', 'disabled']),
    granted_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false, title: 'Member' },
);

const InviteBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    role: StringEnum(['viewer'], 'Owners invite viewers; owners are made by the operator'),
  },
  { additionalProperties: false, title: 'MemberInvite' },
);

const InvitedSchema = Type.Object(
  {
    account_id: Uuid('Account id'),
    email: Type.String(),
    role: MemberRoleSchema,
    setup_token: Type.Union([Type.String(), Type.Null()], {
      description: 'A new account only: its one-time setup token (24 h), shown this once',
    }),
    setup_url: Type.Union([Type.String(), Type.Null()], {
      description: 'A new account only: the setup link to hand to the person invited',
    }),
  },
  { additionalProperties: false, title: 'MemberInvited' },
);

const MemberParams = Type.Object(
  { merchant_id: Uuid('Merchant id'), account_id: Uuid('Account id') },
  { additionalProperties: false },
);

export async function memberRoutes(app: ApiServer, deps: CabinetDeps): Promise<void> {
  const s = deps.services;

  app.get(
    '/cabinet/v1/merchants/:merchant_id/members',
    {
      // Who else holds the merchant is the owners' to see.
      config: { role: 'owner' },
      schema: {
        operationId: 'listMembers',
        tags: ['members'],
        summary: 'The accounts that hold the merchant, by email, with their role',
        description: 'Owners only (403 role_not_allowed for a viewer).',
        params: MerchantParams,
        response: {
          200: Type.Object({ data: Type.Array(MemberSchema) }, { title: 'MemberList' }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (req) => listMembers(s.db, ownedMerchantOf(req).id),
  );

  app.post(
    '/cabinet/v1/merchants/:merchant_id/members',
    {
      schema: {
        operationId: 'inviteMember',
        tags: ['members'],
        summary: 'Invite a viewer: reads, reports and exports of this merchant only',
        description:
          'An email without an account gets one, with a one-time setup link (24 h) in the answer, shown once; an existing account is granted at once (no link). Inviting again changes nothing. 409 invalid_state for an account the operator disabled, or one that is an owner of the merchant already.',
        params: MerchantParams,
        body: InviteBody,
        response: { 201: InvitedSchema, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (req, reply) => {
      const invited = await inviteViewer(
        s,
        cabinetUrl(s.config),
        sessionOf(req),
        ownedMerchantOf(req).id,
        req.body.email,
      );
      return reply.code(201).send(invited);
    },
  );

  app.delete(
    '/cabinet/v1/merchants/:merchant_id/members/:account_id',
    {
      schema: {
        operationId: 'removeMember',
        tags: ['members'],
        summary: 'Remove a viewer, or leave the merchant yourself',
        description:
          "The account's next request for this merchant is merchant_not_found. Another owner is the operator's to remove, and the last owner never leaves: both 409 invalid_state. 404 owner_not_found for an account that does not hold the merchant.",
        params: MemberParams,
        response: { 204: { type: 'null', description: 'Removed' }, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (req, reply) => {
      await removeMember(s, sessionOf(req), ownedMerchantOf(req).id, req.params.account_id);
      return reply.code(204).send();
    },
  );
}
