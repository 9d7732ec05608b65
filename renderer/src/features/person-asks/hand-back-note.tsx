/**
 * The hand-back's note for the agent, offered in the phone view while the person holds a phone
 * the agent asked them to take over: the agent's android_ask_person call returns it.
 */
import { useT } from '../../i18n/i18n-context';

/** A hand-back note is a few words (the admin route takes up to 2 000 characters). */
const NOTE_MAX_CHARS = 2000;

export function HandBackNote(props: {
  value: string;
  onChange: (note: string) => void;
  disabled: boolean;
}): React.JSX.Element {
  const { t } = useT();
  return (
    <label className="pv-hand-back-note">
      <span>{t('asks.handBackNote')}</span>
      <input
        type="text"
        value={props.value}
        maxLength={NOTE_MAX_CHARS}
        placeholder={t('asks.handBackNotePlaceholder')}
        disabled={props.disabled}
        onChange={(event) => props.onChange(event.target.value)}
        data-testid="phone-view-hand-back-note"
      />
    </label>
  );
}
