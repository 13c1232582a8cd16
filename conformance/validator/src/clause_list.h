/* Every format's clause table, as the validator reads them: each format
 * folder holds its one table (formats/<name>/src/<name>_clauses.h, the form
 * is described there); the validator's clause enum, table and report follow
 * this list. test_clauses.c checks each against its spec both ways. */
#ifndef ATF_VALIDATOR_CLAUSE_LIST_H
#define ATF_VALIDATOR_CLAUSE_LIST_H

#include "atf_clauses.h"
#include "wtf_clauses.h"
#include "rtc_clauses.h"

/* ATF's (SPEC.md), then WTF's (SPEC-WTF.md), then RTC's (SPEC-RTC.md); the
 * RTC table names its clauses without their format prefix, given here. */
#define ATF_CLAUSE_LIST_RTC(X) RTC_CLAUSE_TABLE(X, RTC_)
#define ATF_CLAUSE_LIST(X) ATF_CLAUSE_LIST_ATF(X) ATF_CLAUSE_LIST_WTF(X) ATF_CLAUSE_LIST_RTC(X)

#endif
