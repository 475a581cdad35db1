import { useId, type FormEvent } from 'react';
import { ErrorMessage } from '../components/error-message.tsx';
import { useDocumentTitle } from '../components/use-document-title.ts';
import { useSignIn } from './use-session.ts';

/**
 * The sign-in form: the key is read from the form when it is sent and the form is cleared, so it lives in no state,
 * no storage and no URL; the httpOnly session cookie stands for it afterwards.
 */
export function SignIn() {
  useDocumentTitle('Sign in');
  const signIn = useSignIn();
  const keyId = useId();
  const hintId = useId();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const entered = new FormData(form).get('apiKey');
    const apiKey = typeof entered === 'string' ? entered.trim() : '';
    form.reset();
    if (apiKey) signIn.mutate(apiKey);
  };

  return (
    <main className="sign-in" id="main">
      <h1>Sign in to the console</h1>
      <form onSubmit={submit} aria-describedby={hintId}>
        <label htmlFor={keyId}>API key</label>
        <input id={keyId} name="apiKey" type="password" autoComplete="off" spellCheck={false} required placeholder="rpk_…" />
        <p id={hintId} className="hint">
          The key is sent once; the console keeps a session cookie for 12 hours instead, which no script can read.
        </p>
        <button type="submit" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        {signIn.error && <ErrorMessage error={signIn.error} />}
      </form>
    </main>
  );
}
