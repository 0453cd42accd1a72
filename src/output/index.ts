export { outputMode, type OutputMode } from './mode.js';
export { printJson, printKeyValues, printRows, printTable, type Column } from './print.js';
export { mask } from '../secrets.js';
export { palette } from './color.js';
