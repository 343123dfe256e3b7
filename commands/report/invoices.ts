import { reportCommand } from '../../src/cli/report-command.js';

export default reportCommand('invoices');
