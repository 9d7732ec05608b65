/**
 * The reasons the policy engine gives, as codes with parameters: the console words them in
 * the person's language (main/contract/approval-wording.ts, `approvals.reason.<code>`), and
 * the agent's messages and the audit trail get the same words in English.
 */
import type { AdminApprovalReason } from '../../contract/admin-api';
import { reasonText } from '../../contract/approval-wording';
import { translator } from '../../contract/i18n';

/** Every code the engine and the gate can give; test/unit/approval-wording.test.ts checks each has its words. */
export const REASON_CODES = [
  'screen_unchecked',
  'app_payments',
  'app_wallet',
  'app_banking',
  'app_store',
  'app_password_manager',
  'app_security',
  'app_listed',
  'app_looks_financial',
  'settings_page',
  'opens_settings_page',
  'opens_settings_row',
  'opens_from_home',
  'permission_prompt',
  'secure_screen',
  'install_app',
  'push_file',
  'non_web_url',
  'non_web_url_no_scheme',
  'clipboard_read',
  'grants_permission',
  'revokes_permission',
  'clears_app_data',
  'pastes_into_password',
  'types_secret',
  'types_password',
  'types_password_unchecked',
  'taps_money',
  'taps_account',
  'taps_reset',
  'screen_money',
  'screen_account',
  'screen_reset',
  'needs_approval',
] as const;

export type ReasonCode = (typeof REASON_CODES)[number];

/** One reason: a code of this list, its parameters, and in a batch the step's tool. */
export interface PolicyReason extends AdminApprovalReason {
  code: ReasonCode;
}

const ENGLISH = translator('en');

/** The reason in English, as the agent hears it and the audit trail keeps it. */
export function reasonInEnglish(reason: AdminApprovalReason): string {
  return reasonText(ENGLISH, reason);
}

/** Two reasons say the same thing (a batch's steps often find the same screen word). */
export function sameReason(a: AdminApprovalReason, b: AdminApprovalReason): boolean {
  return a.code === b.code && a.step_tool === b.step_tool && JSON.stringify(a.params) === JSON.stringify(b.params);
}
