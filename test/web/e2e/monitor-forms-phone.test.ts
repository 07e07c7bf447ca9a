import { monitorFormScenarios } from './monitor-forms.scenarios.ts';

monitorFormScenarios(390);
