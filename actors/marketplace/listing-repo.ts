import type { Store, Table } from '../../runtime/store/store.js';
import { LISTINGS_FIXTURE, type ListingRecord } from './listings-fixture.js';

/** The marketplace listings in the store, seeded from {@link LISTINGS_FIXTURE}. */
export class ListingRepo {
  private readonly listings: Table<ListingRecord>;

  constructor(private readonly store: Store) {
    this.listings = store.table<ListingRecord>('marketplace_listings');
  }

  /** Writes the fixture's listings that are not in the store yet; at boot, before serving. Returns how many. */
  seedSync(fixture: readonly ListingRecord[] = LISTINGS_FIXTURE): number {
    return this.store.transactionSync(() => {
      let added = 0;
      for (const listing of fixture) {
        if (this.listings.doesExist(listing.id)) continue;
        void this.listings.put(listing.id, listing);
        added++;
      }
      return added;
    });
  }

  /** One listing, if it exists. */
  get(id: string): ListingRecord | undefined {
    return this.listings.get(id);
  }

  /** Every listing (of `category` when given), in id order. */
  list(category?: string): ListingRecord[] {
    const out: ListingRecord[] = [];
    for (const { value } of this.listings.getRange())
      if (category === undefined || value.category === category) out.push(value);
    return out;
  }
}
