import type { ReactNode } from 'react';
import { Link, useRoute } from 'wouter';
import { ErrorMessage } from '../components/error-message.tsx';
import { useSignOut } from '../session/use-session.ts';
import { sections, type Section } from './sections.ts';

function NavLink({ section }: { section: Section }) {
  const [active] = useRoute(`${section.path}/*?`);
  return (
    <li>
      <Link href={section.path} aria-current={active ? 'page' : undefined}>
        {section.name}
      </Link>
    </li>
  );
}

/** Every signed-in page: a skip link, the header with the account and sign-out, the sections, then the page. */
export function Shell({ accountId, children }: { accountId: string; children: ReactNode }) {
  const signOut = useSignOut();
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Rich push console</span>
        <span className="account">
          Account <code>{accountId}</code>
        </span>
        <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          Sign out
        </button>
      </header>
      {signOut.error && <ErrorMessage error={signOut.error} />}
      <nav aria-label="Sections">
        <ul>
          {sections.map((section) => (
            <NavLink key={section.path} section={section} />
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
