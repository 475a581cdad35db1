import { useEffect } from 'react';

/** Names the page in the tab and for screen readers, which announce the title on navigation. */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Rich push console`;
  }, [title]);
}
