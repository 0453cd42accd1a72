export { outputMode, type OutputMode } from './mode.js';
export { printJson, printKeyValues, printTable, type Column } from './print.js';
export { mask, maskSecrets } from './mask.js';
export { palette } from './color.js';
