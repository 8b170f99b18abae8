// The compliance workbench's store side: the software index, the check and its incidents, the
// matches of a rule query against the database's software.
export { answerOf, type CheckPlan, type CheckProgress, type CheckRun, planCheck, runInTurns, runNow } from './check';
export { COMPLIANCE_EVENT_TYPE, raiseIncidents, type RaiseProgress } from './incidents';
export { DEFAULT_MATCH_PAGE, matchList, matchPage, queryOrRefuse } from './match';
export { assetsById, assetsByName, ruleSetNames, ruleSetsById, ruleSetsByName, softwareCount } from './reads';
export { type IndexProgress, SoftwareIndex, softwareIndex, softwareIndexNow, softwareIndexProgress } from './software-index';
