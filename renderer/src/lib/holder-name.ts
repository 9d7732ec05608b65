/**
 * Who holds a phone, as a person names them: the name a lab claimant typed on the form, else
 * xAgent (a pairing the person approved). The channel id stays behind, in a tooltip.
 */
import type { AdminChannel } from '../../../main/contract/admin-api';
import type { Translate } from '../../../main/contract/i18n';

export function holderName(t: Translate, channel: Pick<AdminChannel, 'holder'> | undefined): string {
  const requester = channel?.holder?.requester;
  return requester ? t('devices.lease.claimant', { name: requester }) : t('devices.lease.xagent');
}
