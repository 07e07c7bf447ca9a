import { monitorPageScenarios } from './monitor-page.scenarios.ts';

monitorPageScenarios(1280);
