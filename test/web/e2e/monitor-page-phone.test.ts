import { monitorPageScenarios } from './monitor-page.scenarios.ts';

monitorPageScenarios(390);
