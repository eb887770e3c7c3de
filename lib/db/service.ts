import { Service } from 'electrodb';
import { config } from '../core/config.js';
import { documentDb } from './client.js';
import { entities } from './schema.js';

function buildService() {
  return new Service(entities, { client: documentDb(), table: config().tableName });
}

export type Db = ReturnType<typeof buildService>;

let service: Db | undefined;

/** The ElectroDB Service over the single table; built once per container. */
export function db(): Db {
  service ??= buildService();
  return service;
}
