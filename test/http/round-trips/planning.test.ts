import { useInProcess } from '../../support/api.js';
import { budgetTests } from '../../support/round-trips.js';
import { releaseProbes, milestoneProbes } from './planning.js';

// A matrix: in process, through the same route table and handlers (test/support/api.ts).
useInProcess();

budgetTests('planning', { ...releaseProbes(), ...milestoneProbes() });
