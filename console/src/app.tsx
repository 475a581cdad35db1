import { lazy, Suspense } from 'react';
import { Redirect, Route, Switch } from 'wouter';
import { ErrorMessage } from './components/error-message.tsx';
import { SignIn } from './session/sign-in.tsx';
import { useSession } from './session/use-session.ts';
import { Shell } from './shell/shell.tsx';

// Pages load when first shown, so the first page's JavaScript stays small (docs/console.md, "Size").
const MessagesPage = lazy(() => import('./pages/messages/messages-page.tsx'));
const MessagePage = lazy(() => import('./pages/messages/message-page.tsx'));
const AbTestsPage = lazy(() => import('./pages/abtests/abtests-page.tsx'));
const AbTestPage = lazy(() => import('./pages/abtests/abtest-page.tsx'));
const FlowsPage = lazy(() => import('./pages/flows/flows-page.tsx'));
const FlowPage = lazy(() => import('./pages/flows/flow-page.tsx'));
const RunPage = lazy(() => import('./pages/flows/run-page.tsx'));
const DeliveriesPage = lazy(() => import('./pages/deliveries/deliveries-page.tsx'));
const EndpointPage = lazy(() => import('./pages/deliveries/endpoint-page.tsx'));
const NotFoundPage = lazy(() => import('./pages/not-found-page.tsx'));
const ArtistPage = lazy(() => import('./pages/artist/artist-page.tsx'));
const JobsPage = lazy(() => import('./pages/jobs/jobs-page.tsx'));
const JobPage = lazy(() => import('./pages/jobs/job-page.tsx'));
const AudiencePage = lazy(() => import('./pages/audience/audience-page.tsx'));
const SegmentPage = lazy(() => import('./pages/audience/segment-page.tsx'));
const EventsPage = lazy(() => import('./pages/audience/events-page.tsx'));
const SettingsPage = lazy(() => import('./pages/settings/settings-page.tsx'));

const loading = <p role="status">Loading…</p>;

/** The signed-in console, under /console: the sign-in form until there is a session. */
function Console() {
  const session = useSession();
  if (session.isPending) return loading;
  if (session.error) return <ErrorMessage error={session.error} />;
  if (!session.data.signedIn) return <SignIn />;
  return (
    <Shell accountId={session.data.accountId}>
      <Suspense fallback={loading}>
        <Switch>
          <Route path="/">
            <Redirect to="/messages" replace />
          </Route>
          <Route path="/messages">
            <MessagesPage />
          </Route>
          <Route path="/messages/:id">{({ id }) => <MessagePage id={id} />}</Route>
          <Route path="/jobs" component={JobsPage} />
          <Route path="/jobs/:id">{({ id }) => <JobPage id={id} />}</Route>
          <Route path="/audience" component={AudiencePage} />
          <Route path="/audience/events" component={EventsPage} />
          <Route path="/audience/segments/:id">{({ id }) => <SegmentPage id={id} />}</Route>
          <Route path="/settings" component={SettingsPage} />
          <Route path="/abtests">
            <AbTestsPage />
          </Route>
          <Route path="/abtests/:id">{({ id }) => <AbTestPage id={id} />}</Route>
          <Route path="/flows">
            <FlowsPage />
          </Route>
          <Route path="/flows/:id">{({ id }) => <FlowPage id={id} />}</Route>
          <Route path="/flows/:id/runs/:runId">{({ id, runId }) => <RunPage experienceId={id} runId={runId} />}</Route>
          <Route path="/deliveries">
            <DeliveriesPage />
          </Route>
          <Route path="/deliveries/:id">{({ id }) => <EndpointPage id={id} />}</Route>
          <Route>
            <NotFoundPage />
          </Route>
        </Switch>
      </Suspense>
    </Shell>
  );
}

/** Two trees: the console under /console, and an artist's page at /artist/{token}, which needs no sign-in. */
export function App() {
  return (
    <Switch>
      <Route path="/artist/:token">
        {({ token }) => (
          <Suspense fallback={loading}>
            <ArtistPage token={token} />
          </Suspense>
        )}
      </Route>
      <Route path="/console" nest>
        <Console />
      </Route>
    </Switch>
  );
}
