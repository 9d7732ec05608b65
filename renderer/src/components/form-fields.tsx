/**
 * The forms' pieces, written once: a labelled box, a labelled choice, a list's filter, a
 * labelled tick box, the form's submit button, and a form card with its heading and hint.
 * A field's id is also its test id, so the label, the box and the tests name the same thing.
 */
import type { ComponentPropsWithRef, ReactNode } from 'react';
import { Rich } from '../i18n/rich-text';

type InputProps = Omit<ComponentPropsWithRef<'input'>, 'id' | 'value' | 'onChange' | 'type'>;

/** A text or password box with its label above, one `.field` of a `.field-row`. */
export function TextField(
  props: InputProps & {
    id: string;
    label: string;
    value: string;
    onValue: (value: string) => void;
    type?: 'text' | 'password';
    /** A short box (a six-digit code) that leaves the row's room to the others. */
    narrow?: boolean;
  },
): React.JSX.Element {
  const { id, label, value, onValue, type = 'text', narrow = false, ...input } = props;
  return (
    <div className={narrow ? 'field field-narrow' : 'field'}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        value={value}
        onChange={(event) => onValue(event.target.value)}
        data-testid={id}
        {...input}
      />
    </div>
  );
}

/** A choice among a few options; its id is also its test id. */
function Choice<V extends string>(props: {
  id: string;
  value: V;
  onValue: (value: V) => void;
  options: ReadonlyArray<{ value: V; label: string }>;
  ariaLabel?: string | undefined;
}): React.JSX.Element {
  return (
    <select
      id={props.id}
      value={props.value}
      // The value is one of `options`, whose values are V.
      onChange={(event) => props.onValue(event.target.value as V)}
      aria-label={props.ariaLabel}
      data-testid={props.id}
    >
      {props.options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </select>
  );
}

/** A choice among a few options with its label above. */
export function SelectField(props: {
  id: string;
  label: string;
  value: string;
  onValue: (value: string) => void;
  options: ReadonlyArray<{ value: string; label: string }>;
}): React.JSX.Element {
  const { label, ...choice } = props;
  return (
    <div className="field">
      <label htmlFor={props.id}>{label}</label>
      <Choice {...choice} />
    </div>
  );
}

/**
 * A list's filter in its toolbar (the first option usually "all"). Its name is a label beside
 * it, or, where the toolbar has no room for one, only what a screen reader says.
 */
export function FilterSelect<V extends string>(props: {
  id: string;
  label: string;
  /** The label is shown beside the choice, not only read out. */
  labelShown?: boolean;
  value: V;
  onValue: (value: V) => void;
  options: ReadonlyArray<{ value: V; label: string }>;
}): React.JSX.Element {
  const { label, labelShown = false, ...choice } = props;
  if (!labelShown) return <Choice {...choice} ariaLabel={label} />;
  return (
    <>
      <label htmlFor={props.id}>{label}</label>
      <Choice {...choice} />
    </>
  );
}

/** A tick box with its label after it. */
export function CheckField(props: {
  id: string;
  label: ReactNode;
  checked: boolean;
  onChecked: (checked: boolean) => void;
}): React.JSX.Element {
  return (
    <div className="field-check">
      <input
        id={props.id}
        type="checkbox"
        checked={props.checked}
        onChange={(event) => props.onChecked(event.target.checked)}
        data-testid={props.id}
      />
      <label htmlFor={props.id}>{props.label}</label>
    </div>
  );
}

/** The form's one primary button, disabled while its action is on its way. */
export function SubmitButton(props: {
  pending: boolean;
  testId: string;
  /** At the end of a `.field-row`, lined up with the boxes' bottoms. */
  inRow?: boolean;
  children: ReactNode;
}): React.JSX.Element {
  return (
    <button
      type="submit"
      className={props.inRow ? 'btn btn-primary field-button' : 'btn btn-primary'}
      disabled={props.pending}
      data-testid={props.testId}
    >
      {props.children}
    </button>
  );
}

/**
 * A form on its own card: the heading names it (`${id}-heading`), the hint says what it is
 * for, and submitting never reloads the page.
 */
export function FormCard(props: {
  id: string;
  title: string;
  hint: string;
  onSubmit: () => void;
  testId?: string;
  children: ReactNode;
}): React.JSX.Element {
  const heading = `${props.id}-heading`;
  return (
    <form
      className="form-card"
      aria-labelledby={heading}
      data-testid={props.testId}
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit();
      }}
    >
      <h3 id={heading}>{props.title}</h3>
      <p className="hint">
        <Rich text={props.hint} />
      </p>
      {props.children}
    </form>
  );
}
