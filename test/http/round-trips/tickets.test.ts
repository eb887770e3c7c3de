import { useInProcess } from '../../support/api.js';
import { budgetTests } from '../../support/round-trips.js';
import { ticketProbes } from './tickets.js';

// A matrix: in process, through the same route table and handlers (test/support/api.ts).
useInProcess();

budgetTests('tickets', { ...ticketProbes() });
