/**
 * The people of a merchant: its owners invite viewers (reads, reports and exports) and remove
 * them, or leave themselves; a merchant always keeps one owner. An invited email without an
 * account gets one with a one-time setup link, as `paygate owner create` makes; an existing
 * account is granted at once, unless the operator disabled it. Every change is audited with the
 * owner as actor, in its transaction (SERIALIZABLE on PostgreSQL, so two owners leaving at once
 * cannot both pass the last-owner check).
 */
import { recordAudit } from '../audit/store.js';
import { writeTx, type Db } from '../db/database.js';
import { AppError, validationFailed } from '../errors.js';
import {
  findOwner,
  findOwnerByEmail,
  grantMerchant,
  insertOwner,
  membersOf,
  revokeMerchant,
  type OwnerRow,
} from '../owners/store.js';
import { newOwnerRow, newSetupLink, normalizeEmail, ownerStatus } from '../owners/service.js';
import type { Services } from '../services.js';
import type { CabinetSession } from './sessions.js';
import { ownerActor } from './context.js';

export async function listMembers(db: Db, merchantId: string) {
  const rows = await membersOf(db, merchantId);
  return {
    data: rows.map((r) => ({
      account_id: r.account_id,
      email: r.email,
      role: r.role,
      status: ownerStatus({ password_hash: r.password_hash, disabled_at: r.disabled_at } as OwnerRow),
      granted_at: r.granted_at,
    })),
  };
}

/** Invites `email` as a viewer of the merchant; a new account's setup link is in the answer, once. */
export async function inviteViewer(
  s: Pick<Services, 'db' | 'clock'>,
  cabinetUrl: string,
  session: CabinetSession,
  merchantId: string,
  emailText: string,
) {
  const email = normalizeEmail(emailText);
  if (!email) throw validationFailed('body.email', 'must be an email address');
  return writeTx(s.db, async (trx) => {
    const at = s.clock.now();
    const existing = await findOwnerByEmail(trx, email);
    if (existing?.disabled_at)
      throw new AppError('invalid_state', 'This account was disabled by the operator: it cannot be invited');
    const held = existing && (await membersOf(trx, merchantId)).find((m) => m.account_id === existing.id);
    if (held?.role === 'owner') throw new AppError('invalid_state', 'This account is an owner of the merchant already');
    const account = existing ?? newOwnerRow(email, at.toISOString());
    if (!existing) await insertOwner(trx, account);
    if (!held) await grantMerchant(trx, account.id, merchantId, at.toISOString(), 'viewer');
    const link = existing ? null : await newSetupLink(trx, at, account.id, cabinetUrl);
    if (!held)
      await recordAudit(trx, s.clock, {
        actor: ownerActor(session),
        action: 'owner.grant',
        subjectType: 'owner',
        subjectId: account.id,
        merchantId,
        details: { email, role: 'viewer', new_account: !existing },
      });
    return {
      account_id: account.id,
      email,
      role: 'viewer' as const,
      setup_token: link?.setup_token ?? null,
      setup_url: link?.setup_url ?? null,
    };
  });
}

/** Removes a viewer, or the signed-in owner itself; never another owner, never the last one. */
export async function removeMember(
  s: Pick<Services, 'db' | 'clock'>,
  session: CabinetSession,
  merchantId: string,
  accountId: string,
): Promise<void> {
  await writeTx(s.db, async (trx) => {
    const members = await membersOf(trx, merchantId);
    const member = members.find((m) => m.account_id === accountId);
    if (!member) throw new AppError('owner_not_found', 'No account of this merchant has this id');
    if (member.role === 'owner') {
      if (accountId !== session.owner.id)
        throw new AppError('invalid_state', 'Another owner is removed by the operator only');
      if (members.filter((m) => m.role === 'owner').length < 2)
        throw new AppError('invalid_state', 'The merchant would have no owner left: make someone else an owner first');
    }
    await revokeMerchant(trx, accountId, merchantId);
    const account = await findOwner(trx, accountId);
    await recordAudit(trx, s.clock, {
      actor: ownerActor(session),
      action: 'owner.revoke',
      subjectType: 'owner',
      subjectId: accountId,
      merchantId,
      details: { email: account?.email ?? member.email, role: member.role },
    });
  });
}
