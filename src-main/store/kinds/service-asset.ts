// Assets: the update answers the asset with its related lists and computed fields; pushed with
// their type, name and location in every update and an audit trace id.
import { serviceAssets } from '../../../src-shared/resources/service_assets';
import type { KindModule, NamedOperation } from './types';

const update: NamedOperation = {
  handle({ store, body, userId }) {
    return store.tx(() => {
      store.update(serviceAssets, body, { userId });
      return store.get(serviceAssets, body.id);
    });
  },
};

export const serviceAssetsKind: KindModule = {
  resource: serviceAssets,
  operations: { 'service_assets.update': update, 'service_assets.update_post': update },
  sync: { list: { key: serviceAssets.name, order: 1, publicPath: 'serviceAssets' }, updateRequires: ['type', 'name', 'location'], traceId: true },
};
