/**
 * The matching engine's journal: an append-only log of byte records in memory-mapped segment
 * files, each record carrying its length and a CRC32C. {@link io.ringwire.exchange.journal.Journal}
 * appends (the engine journals each accepted message before applying it);
 * {@link io.ringwire.exchange.journal.JournalReader} replays, from the start or from a snapshot's
 * sequence, and tells a torn last record (an append a crash cut short: reported, never delivered)
 * from corruption in the middle (reported, and reading stops).
 * {@link io.ringwire.exchange.journal.JournalDirectory} keeps the application's settings beside
 * the records, so replay needs nothing but the directory.
 */
package io.ringwire.exchange.journal;
