import { useDocumentTitle } from '../components/use-document-title.ts';
import type { Section } from '../shell/sections.ts';

/** A section whose page is still to come: what it will show, and the API routes that answer the same today. */
export default function PlaceholderPage({ section }: { section: Section }) {
  useDocumentTitle(section.name);
  return (
    <>
      <h1>{section.name}</h1>
      <p>{section.purpose}</p>
      <p>This page is not built yet. The API answers the same today:</p>
      <ul>
        {section.routes.map((route) => (
          <li key={route}>
            <code>{route}</code>
          </li>
        ))}
      </ul>
    </>
  );
}
