import { Link } from 'wouter';
import { useDocumentTitle } from '../components/use-document-title.ts';

export default function NotFoundPage() {
  useDocumentTitle('Not found');
  return (
    <>
      <h1>Not found</h1>
      <p>
        No page of the console is at this address. <Link href="/messages">Go to the messages</Link>.
      </p>
    </>
  );
}
