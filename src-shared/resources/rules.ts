import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { ApiError, ERR } from '../errors';
import { isValidTsQuery } from '../tsquery';
import { K } from './kinds';

/** Software compliance rules: a tsquery over installed software (spec: Software compliance rule). */
export const rules: ResourceDef = {
  name: K.rule,
  table: K.rule,
  title: { en: 'Compliance rules', ru: 'Правила соответствия ПО' },
  label: 'name',
  fields: {
    trace_id: f.str(),
    name: f.str({ required: true, notNull: true, unique: true, maxLength: 250 }),
    query: f.str({ required: true, notNull: true }),
    blacklist_entry: f.bool({ default: false }),
  },
  hooks: {
    beforeWrite(values) {
      if (typeof values.query === 'string' && !isValidTsQuery(values.query)) throw new ApiError(400, ERR.invalidQuery);
    },
  },
  relations: {
    [K.ruleSet]: rel.manyToMany(K.ruleSet, 'rule_set_rules', 'rule_id', 'rule_set_id'),
  },
};
