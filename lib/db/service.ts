import { Service, type EntityConfiguration } from 'electrodb';
import { config } from '../core/config.js';
import { documentDb } from './client.js';
import { entityBuilders, type Entities, type EntityName } from './schema.js';

/**
 * The single table as the domain modules see it: `db().entities.<name>` and the one
 * collection read across entities. Nothing is built at import: each entity is constructed
 * when a request first uses it, then kept for the container's life, so a function's cold
 * start pays only for the entities its requests touch (bench: `npm run bench:init`).
 */
export interface Db {
  entities: Entities;
  collections: { orgConfig: OrgConfigService['collections']['orgConfig'] };
}

function orgConfigService(entities: Entities) {
  const { status, ticketType, label, customField, milestone } = entities;
  return new Service({ status, ticketType, label, customField, milestone }, { client: documentDb(), table: config().tableName });
}
type OrgConfigService = ReturnType<typeof orgConfigService>;

/** An object whose property `name` builds that entity on first read. */
function lazyEntities(entityConfig: () => EntityConfiguration): Entities {
  const built: Partial<Record<EntityName, unknown>> = {};
  const entities = {} as Entities;
  for (const name of Object.keys(entityBuilders) as EntityName[]) {
    Object.defineProperty(entities, name, {
      enumerable: true,
      get: () => (built[name] ??= entityBuilders[name](entityConfig())),
    });
  }
  return entities;
}

function buildDb(): Db {
  const entities = lazyEntities(() => ({ client: documentDb(), table: config().tableName }));
  let collectionService: OrgConfigService | undefined;
  return {
    entities,
    collections: {
      orgConfig: (...args) => {
        collectionService ??= orgConfigService(entities);
        return collectionService.collections.orgConfig(...args);
      },
    },
  };
}

let instance: Db | undefined;

/** The table's entities, built on first use and kept for the container's life. */
export function db(): Db {
  instance ??= buildDb();
  return instance;
}
