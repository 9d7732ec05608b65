/**
 * What a view shows when it has nothing yet: says why, and what to do next.
 */
import type { ReactNode } from 'react';
import { useT } from '../i18n/i18n-context';

export function EmptyState(props: { title: string; children?: ReactNode; testId?: string }): React.JSX.Element {
  return (
    <section className="empty-state" data-testid={props.testId}>
      <h3>{props.title}</h3>
      {props.children}
    </section>
  );
}

export function Loading(props: { label?: string }): React.JSX.Element {
  const { t } = useT();
  return (
    <p className="loading" role="status" data-testid="loading">
      <span className="spinner" aria-hidden="true" />
      {props.label ?? t('common.loading')}
    </p>
  );
}
