import { useInProcess } from '../../support/api.js';
import { budgetTests } from '../../support/round-trips.js';
import { claimProbes } from './claims.js';

// A matrix: in process, through the same route table and handlers (test/support/api.ts).
useInProcess();

budgetTests('claims', { ...claimProbes() });
