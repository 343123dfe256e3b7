import { ledgerCommand } from '../../src/cli/ledger-command.js';

export default ledgerCommand('credit');
