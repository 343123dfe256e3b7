// What the account may do with a merchant: an owner everything, a viewer reads, reports and exports
// only. The page shows a viewer no control that changes anything (the server refuses them anyway).
import { h } from '../../shared/dom';
import type { AccountMerchant } from './types';

export const canChange = (m: AccountMerchant): boolean => m.role === 'owner';

/** The line a viewer reads where an owner's controls would be. */
export const viewerNote = (): HTMLElement =>
  h('p', { class: 'hint viewer-note' }, 'You can view this merchant; changes are made by its owners.');
