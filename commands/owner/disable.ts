import { ownerSwitchCommand } from '../../src/cli/owner-switch.js';

export default ownerSwitchCommand('disable');
