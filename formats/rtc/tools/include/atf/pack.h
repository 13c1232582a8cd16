/**
 * @file atf/pack.h
 * An ATF session carried in one RTC file (docs/pack.md, conformance/SPEC-RTC.md
 * section 10, "the atf-pack profile"): `atf pack SESSION FILE.rtc` and
 * `atf unpack FILE.rtc DIR`.
 *
 * Every byte of manifest.json and of every thread's index.atf and
 * detail.atf travels as chunk records of one RTC stream per file, in Units
 * that each check themselves (Crc) and repeat the description of every
 * lane (Meta). Unpacking a whole file gives back the session byte for byte;
 * unpacking a file cut at either end, or with damaged Units, gives back
 * every complete event of every intact Unit as a valid crash-truncated
 * session, and says what was lost.
 *
 * Thread safety: the functions keep no global state; different calls may
 * run on different threads.
 */
#ifndef ATF_PACK_H
#define ATF_PACK_H

#include <stdint.h>
#include <stdio.h>

#include <atf/error.h>
#include <atf/version.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The profile's version, in every lane's Meta definition ("atf-pack"). */
#define ATF_PACK_VERSION 1u

typedef struct atf_pack_options {
    uint64_t unit_size;       /**< RTC Unit U (power of 2); 0: atf_pack_default_unit() for the session */
    uint64_t subunit_size;    /**< RTC unit u (power of 2, 2048 <= u <= U); 0: min(128 KiB, U) */
    unsigned sync;            /**< 1: the file is durable (fdatasync, then an fsync of its
                                   directory) before atf_pack() returns ATF_OK; 0: as cp, the
                                   page cache writes it back later (a power cut may cut it) */
    unsigned reserved[3];     /**< must be zero */
} atf_pack_options;
#define ATF_PACK_OPTIONS_INIT { 0u, 0u, 0u, { 0u, 0u, 0u } }

typedef struct atf_pack_stats {
    uint64_t threads;         /**< thread_K/ directories packed */
    uint64_t files;           /**< files packed (manifest, index and detail lanes) */
    uint64_t index_events, detail_events;
    uint64_t bytes_in;        /**< bytes of the packed files */
    uint64_t bytes_out;       /**< bytes of the RTC file */
    uint64_t manifest_copies; /**< copies of manifest.json written */
    uint64_t unit_size, subunit_size;
    uint64_t not_packed;      /**< entries of the session directory that are not part of a session (named on stderr by the cli) */
    int manifest_invalid;     /**< 1: manifest.json is no valid manifest (`atf validate`: SES-MAN-002); packed once, as bytes */
} atf_pack_stats;

/**
 * The Unit size atf_pack() takes when none is given, for a session of
 * @p bytes (its files) whose stream definitions (the Meta every Unit
 * repeats) take @p meta bytes and whose manifest.json @p manifest bytes:
 * the power of 2 nearest to bytes/32 (one damaged Unit costs about 3 % of
 * the session), but at least 8 times what every Unit repeats (Meta,
 * manifest copy, about 1 KiB of Marker, Index, Crc and padding), at least
 * 16 KiB, at most 1 MiB; then raised until the Meta is at most U/8
 * (docs/pack.md, "Unit size").
 */
ATF_API uint64_t atf_pack_default_unit(uint64_t bytes, uint64_t meta, uint64_t manifest);

/**
 * Packs session directory @p session (manifest.json and thread_K/) into the
 * RTC file @p rtc_path (created or truncated).
 * @param opts   NULL: defaults.
 * @param stats  NULL, or receives the counts.
 * @param notes  NULL, or where a line is written for every entry not packed.
 * @return ::ATF_OK; ::ATF_E_IO (cannot read the session or write the file);
 *         ::ATF_E_ARG (bad sizes, or a Unit too small for the lanes' Meta);
 *         ::ATF_E_NOT_FOUND (@p session holds no manifest.json and no thread_K/);
 *         ::ATF_E_NOMEM.
 */
ATF_API atf_status atf_pack(const char *session, const char *rtc_path, const atf_pack_options *opts,
                            atf_pack_stats *stats, FILE *notes, atf_error *err);

typedef struct atf_unpack_options {
    unsigned force;           /**< 1: write into a directory that is not empty */
    unsigned sync;            /**< 1: the session is durable before atf_unpack() returns ATF_OK: every
                                   file it wrote fdatasync'ed, then the thread directories, the
                                   session directory and its parent fsync'ed; 0: as cp, the page
                                   cache writes it back later (a power cut may cut it) */
    unsigned reserved[3];     /**< must be zero */
} atf_unpack_options;
#define ATF_UNPACK_OPTIONS_INIT { 0u, 0u, { 0u, 0u, 0u } }

typedef struct atf_unpack_stats {
    uint64_t rtc_units;            /**< Units read (intact, or the last one cut) */
    uint64_t skipped_ranges, skipped_bytes;   /**< what the RTC reader skipped */
    int rtc_state;                 /**< atf_rtc_state of the RTC file */
    int manifest;                  /**< 1 written, 0 the session had none, -1 lost */
    uint64_t threads;              /**< thread directories written */
    uint64_t threads_whole;        /**< of those, every file byte for byte */
    uint64_t files_lost;           /**< lanes that could not be written at all */
    uint64_t index_events, index_events_total;   /**< written / in the packed session */
    uint64_t detail_events, detail_events_total;
    uint64_t links_dropped;        /**< index events whose detail event was lost (now "no detail") */
    uint64_t details_unlinked;     /**< detail events left out: their index event was lost */
    int lost;                      /**< 1 when anything of the session was lost or the file is cut or damaged */
    int not_rtc;                   /**< 1: no RTC Marker anywhere in the file (empty, or another format) */
    int reads;                     /**< times the file was read: 1 when every lane was written while it was
                                        read, 2 when one was not (damaged or cut: read again keeping every record) */
} atf_unpack_stats;

/**
 * Unpacks @p rtc_path into the session directory @p dir (created; it must be
 * new or empty unless opts->force). What was lost is written to @p report
 * (NULL: nowhere), one line per fact: skipped ranges, lost lanes, events
 * recovered per thread.
 * @param opts    NULL: defaults.
 * @param stats   NULL, or receives the counts (stats->lost: 1 when anything
 *                was lost, or the file is cut or damaged).
 * @return ::ATF_OK, the session written (see stats->lost); ::ATF_E_IO
 *         (cannot read the file or write the directory); ::ATF_E_ARG (@p dir
 *         is not empty, or a NULL path); ::ATF_E_NOT_FOUND when no intact
 *         Unit describes a packed session (not made by atf_pack(), or nothing
 *         of it is left; nothing is written), or when the file is no RTC
 *         file at all (stats->not_rtc); ::ATF_E_NOMEM.
 */
ATF_API atf_status atf_unpack(const char *rtc_path, const char *dir, const atf_unpack_options *opts,
                              atf_unpack_stats *stats, FILE *report, atf_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ATF_PACK_H */
