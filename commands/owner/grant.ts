import { ownerAccessCommand } from '../../src/cli/owner-access.js';

export default ownerAccessCommand('grant');
