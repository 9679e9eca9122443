// A SQLite VFS that serves every connection's memory-mapped reads of a
// database file from one mapping per process (docs/working-sets.md,
// "Reads at a million products").
#ifndef AXIOM_CSQLITESHAREDMAP_H
#define AXIOM_CSQLITESHAREDMAP_H

/// The VFS's name, for sqlite3_open_v2.
#define AXIOM_SHARED_MAP_VFS "axiom-shared-map"

/// Registers the VFS (not as the default) over the default VFS, once; later
/// calls return the first call's result. SQLITE_OK or a SQLite error code.
int axiom_shared_map_register(void);

#endif
