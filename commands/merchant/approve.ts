import { merchantActionCommand } from '../../src/cli/merchant-action.js';

export default merchantActionCommand('approve');
