import type { RouteSpec } from '../http/route.ts';
import { abTestRoutes } from './abtests/routes.ts';
import { adminRoutes } from './admin/routes.ts';
import { appRoutes } from './apps/routes.ts';
import { artistRoutes } from './artist/routes.ts';
import { connectionRoutes } from './connections/routes.ts';
import { consoleRoutes } from './console/routes.ts';
import { deliveryRoutes } from './deliveries/routes.ts';
import { deviceRoutes } from './devices/routes.ts';
import { openApiRoute } from './docs/routes.ts';
import { endpointRoutes } from './endpoints/routes.ts';
import { eventRoutes } from './events/routes.ts';
import { eventTypeRoutes } from './event-types/routes.ts';
import { experienceRoutes } from './experiences/routes.ts';
import { fileRoutes } from './files/routes.ts';
import { healthRoutes } from './health/routes.ts';
import { ingestRoutes } from './ingest/routes.ts';
import { jobRoutes } from './jobs/routes.ts';
import { notificationRoutes } from './notifications/routes.ts';
import { pushRoutes } from './push/routes.ts';
import { segmentRoutes } from './segments/routes.ts';
import { stockRoutes } from './stock/routes.ts';
import { visitorRoutes } from './visitors/routes.ts';

/** Every HTTP operation of the service. Adding a resource means adding its folder and one line here. */
export const routes: RouteSpec[] = [
  ...healthRoutes,
  ...adminRoutes,
  ...consoleRoutes,
  ...appRoutes,
  ...notificationRoutes,
  ...jobRoutes,
  ...artistRoutes,
  ...fileRoutes,
  ...stockRoutes,
  ...eventTypeRoutes,
  ...endpointRoutes,
  ...deliveryRoutes,
  ...connectionRoutes,
  ...ingestRoutes,
  ...visitorRoutes,
  ...eventRoutes,
  ...experienceRoutes,
  ...abTestRoutes,
  ...pushRoutes,
  ...deviceRoutes,
  ...segmentRoutes,
];
routes.push(openApiRoute(() => routes));
