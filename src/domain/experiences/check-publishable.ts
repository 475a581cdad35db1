import type { EntityManager } from '@mikro-orm/postgresql';
import { Connection } from '../../persistence/entities/connection.ts';
import { Endpoint } from '../../persistence/entities/endpoint.ts';
import { Notification } from '../../persistence/entities/notification.ts';
import { isSendable } from '../campaigns/campaign-message.ts';
import type { ErrorDetail } from '../errors.ts';
import { checkDefinitionGraph } from './check-definition-graph.ts';
import { outboundProviders, type ExperienceDefinition } from './definition-schema.ts';

// Publish rules that need the database, on top of checkDefinitionGraph: the endpoints, connections and messages the
// nodes name must be the account's, and a push node's message READY. One query per kind, whatever the number of nodes.
// Decided (docs/spec-decisions.md, "The definition"): a disabled endpoint and a paused connection pass, because both are switched back on
// without touching the experience; a deleted one, another account's, a connection of a provider we cannot call, or
// one without an outbound credential fail.

const isOutboundProvider = (provider: string): boolean => (outboundProviders as readonly string[]).includes(provider);

async function endpointProblems(em: EntityManager, accountId: string, definition: ExperienceDefinition): Promise<ErrorDetail[]> {
  const uses = definition.nodes.flatMap((node, index) => (node.type === 'webhook' && node.endpointId ? [{ index, endpointId: node.endpointId }] : []));
  if (uses.length === 0) return [];
  const found = await em.find(Endpoint, { id: { $in: [...new Set(uses.map((use) => use.endpointId))] }, accountId, deletedAt: null });
  const known = new Set(found.map((endpoint) => endpoint.id));
  return uses
    .filter((use) => !known.has(use.endpointId))
    .map((use) => ({ path: `nodes.${use.index}.endpointId`, message: `names no endpoint of this account: "${use.endpointId}"` }));
}

async function connectionProblems(em: EntityManager, accountId: string, definition: ExperienceDefinition): Promise<ErrorDetail[]> {
  const uses = definition.nodes.flatMap((node, index) => (node.type === 'provider' ? [{ index, connectionId: node.connectionId }] : []));
  if (uses.length === 0) return [];
  const found = await em.find(Connection, { id: { $in: [...new Set(uses.map((use) => use.connectionId))] }, accountId, deletedAt: null });
  const byId = new Map(found.map((connection) => [connection.id, connection]));
  return uses.flatMap(({ index, connectionId }): ErrorDetail[] => {
    const path = `nodes.${index}.connectionId`;
    const connection = byId.get(connectionId);
    if (!connection) return [{ path, message: `names no connection of this account: "${connectionId}"` }];
    if (!isOutboundProvider(connection.provider)) {
      return [{ path, message: `must be a ${outboundProviders.join(' or ')} connection; "${connectionId}" is a ${connection.provider} connection` }];
    }
    if (connection.outboundCredentialSealed == null) {
      return [{ path, message: `connection "${connectionId}" has no outbound credential: set outboundCredential on it first` }];
    }
    return [];
  });
}

async function messageProblems(em: EntityManager, accountId: string, definition: ExperienceDefinition): Promise<ErrorDetail[]> {
  const uses = definition.nodes.flatMap((node, index) => (node.type === 'push' ? [{ index, notificationId: node.notificationId }] : []));
  if (uses.length === 0) return [];
  const found = await em.find(Notification, { id: { $in: [...new Set(uses.map((use) => use.notificationId))] }, accountId });
  const byId = new Map(found.map((notification) => [notification.id, notification]));
  return uses.flatMap(({ index, notificationId }): ErrorDetail[] => {
    const path = `nodes.${index}.notificationId`;
    const notification = byId.get(notificationId);
    if (!notification) return [{ path, message: `names no message of an app of this account: "${notificationId}"` }];
    if (!isSendable(notification)) return [{ path, message: `message "${notificationId}" is ${notification.status}: a push node sends a READY message` }];
    return [];
  });
}

/** Every problem that keeps this definition from being published for this account; none means it may be. */
export async function checkPublishable(em: EntityManager, accountId: string, definition: ExperienceDefinition): Promise<ErrorDetail[]> {
  const endpoints = await endpointProblems(em, accountId, definition);
  const connections = await connectionProblems(em, accountId, definition);
  const messages = await messageProblems(em, accountId, definition);
  return [...checkDefinitionGraph(definition), ...endpoints, ...connections, ...messages];
}
