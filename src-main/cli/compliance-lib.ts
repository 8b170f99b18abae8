// What the compliance subcommands run, loaded only when one of them does (compliance.ts holds
// their flags and help, which every other command's start-up would otherwise pay for).
export { answerOf, assetsById, assetsByName, matchPage, planCheck, raiseIncidents, ruleSetNames, ruleSetsById, ruleSetsByName, runNow, softwareIndexNow } from '../store/compliance/index';
export { openDatabase } from '../store/db';
export { Store } from '../store/store';
