/**
 * What the web console shows without a usable admin token: how to get the right link.
 */
import { useT } from '../i18n/i18n-context';
import { Rich } from '../i18n/rich-text';

export function TokenScreen(props: { reason: 'missing' | 'invalid' }): React.JSX.Element {
  const { t } = useT();
  return (
    <main className="token-screen" data-testid="token-screen">
      <div className="token-card">
        <h1>{t('common.app.name')}</h1>
        {props.reason === 'invalid' ? (
          <p className="error-text" role="alert" data-testid="token-invalid">
            {t('common.token.invalid')}
          </p>
        ) : null}
        <p className="lead">
          <Rich text={t('common.token.lead')} />
        </p>
        <p className="hint">
          <Rich text={t('common.token.looksLike')} />
        </p>
        <p className="hint">
          <Rich text={t('common.token.lost')} />
        </p>
      </div>
    </main>
  );
}
