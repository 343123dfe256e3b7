import { haltCommand } from '../../src/cli/halt-command.js';

export default haltCommand('resume');
