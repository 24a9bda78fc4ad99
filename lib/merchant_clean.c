/*
 * A merchant from raw bank text: "SQ *BLUE BOTTLE COFFEE 0123 SAN
 * FRANCISCO CA" -> "Blue Bottle Coffee".
 *
 * The cleaning is a table of named patterns (PATTERNS below), applied in
 * order, each one a global, caseless PCRE2 substitution; what a bank
 * writes is data here, not code, so a new processor prefix or legal form
 * is one line.  The order is the rule: brands whose raw text the later
 * steps would mangle first, then the processors' and wallets' prefixes,
 * the chains whose descriptor is not their name, the fixed-width padding,
 * numbers of every kind (references, store and terminal numbers, card
 * masks, dates, times, phone numbers), URLs down to their brand, the
 * trailing location, the legal form; then a readable case, word by
 * word.  The same text always gives the same name.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "merchant_clean.h"
#include "text.h"

struct pattern {
    const char *name;     /* what it removes, for a reader of this table */
    const char *pattern;  /* caseless, UTF-8 */
    const char *replace;  /* pcre2_substitute syntax: $1 is the first group */
};

/* The US states, Canadian provinces and Australian states a card
 * processor appends after the city, and the country codes after them. */
#define REGION "(?:A[KLRZ]|C[AOT]|D[CE]|FL|GA|HI|I[ADLN]|K[SY]|LA|M[ADEINOST]|N[CDEHJMVY]|O[HKR]|PA|RI|S[CD]|" \
               "T[NX]|UT|V[AT]|W[AIVY]|NSW|VIC|QLD|TAS|ACT|NT|ON|BC|QC|AB|MB|NS|NB|SK|PE|NL)"
#define COUNTRY "(?:USA?|AUS?|CAN|GBR?|UK|NZL?|IRL|IE|DEU?|FRA?|NLD?|ESP?|ITA?|SE|SWE|DNK|DK|CHE?|SGP?|" \
                "JPN?|HKG?|LUX?|BEL?|PRT|POL|MEX)"
/* Cities that most often trail a merchant name in the public exports. */
#define CITY "(?:SAN FRANCISCO|SAN FRANCISC|SAN FRANCIS|SAN JOSE|SAN DIEGO|LOS ANGELES|NEW YORK|NEW YORK CITY|" \
             "BROOKLYN|SEATTLE|PORTLAND|CHICAGO|BOSTON|AUSTIN|DALLAS|HOUSTON|DENVER|ATLANTA|MIAMI|" \
             "OAKLAND|BERKELEY|PALO ALTO|MOUNTAIN VIEW|SUNNYVALE|SANTA CLARA|CUPERTINO|REDMOND|" \
             "BELLEVUE|PHILADELPHIA|WASHINGTON|ARLINGTON|MINNEAPOLIS|PHOENIX|LAS VEGAS|" \
             "SYDNEY|MELBOURNE|BRISBANE|PERTH|ADELAIDE|CANBERRA|LONDON|TORONTO|VANCOUVER|MONTREAL|" \
             "DUBLIN|AMSTERDAM|BERLIN|PARIS|LOS GATOS|SALT LAKE CTY|SALT LAKE CITY|SACRAMENTO|" \
             "STOCKHOLM|LUXEMBOURG|SINGAPORE|TOKYO|AUCKLAND|WELLINGTON|HONG KONG|SAN MATEO|" \
             "INTERNET|ONLINE|WWW|HTTPSWWW)"

static const struct pattern PATTERNS[] = {
    /* Brands whose raw text the steps below would cut to nothing useful. */
    { "amazon", "^.*\\b(?:AMZN|AMAZON)(?:\\s*MKTP|\\s*MKTPLACE|\\s*MARKETPLACE|\\.COM|\\.CO\\.UK|\\s+COM\\b|"
                "\\s+RETA|\\s+DIGITAL|\\s+SERVICES|\\s*\\*|\\s+PAYMENTS|\\s+WEB\\s+SERVICES).*$", "Amazon" },
    { "apple", "^.*\\bAPPLE\\.COM\\s*/\\s*(?:BILL|US).*$", "Apple" },
    { "itunes", "^.*\\bITUNES\\.COM.*$", "iTunes" },
    { "uber eats", "^(?:.*\\s)?UBER\\s*\\*?\\s*EATS\\b.*$", "Uber Eats" },
    /* Processors' and wallets' prefixes, twice over ("POS SQ *..."). */
    { "bank prefix", "^(?:POS|EFTPOS|ATM)\\s+(?:PURCHASE|DEBIT|W/D|WITHDRAWAL|TRANSACTION)?\\s*[-:]?\\s*", "" },
    { "card purchase", "^(?:VISA|MASTERCARD|MC|DEBIT)\\s+(?:DEBIT\\s+)?(?:PURCHASE|POS)?\\s*"
                       "(?:-\\s*)?(?:CARD\\s*\\d{4})?\\s*", "" },
    { "check card", "^CHECK\\s*CARD\\s*(?:PURCHASE)?\\s*:?\\s*(?:\\d{4}\\s+)?", "" },
    { "card purchase words", "^(?:DEBIT|CREDIT|DBT)?\\s*CARD\\s+(?:PURCHASE|DEBIT|PMT)\\s*[-:]?\\s*"
                             "(?:\\d{4}\\s+)?", "" },
    { "authorized on", "^(?:RECURRING\\s+)?(?:PURCHASE|PAYMENT)(?:\\s+AUTHORIZED\\s+ON\\s+\\d\\d/\\d\\d)?\\s+", "" },
    { "ach", "^(?:ACH|ONLINE|ELECTRONIC|PREAUTHORIZED|PRE-AUTHORIZED)\\s+(?:DEBIT|PAYMENT|PMT|WITHDRAWAL)"
             "\\s*[-:]?\\s*", "" },
    { "bill pay", "^(?:ONLINE\\s+)?BILL\\s*(?:PAYMENT|PAY|PMT)\\s+(?:TO\\s+)?", "" },
    { "wallet", "^(?:SQ|SQU|SQUARE|TST|PAYPAL|PP|GOOGLE|GGL|IC|SP|BT|FS|EB|PY|CKE|ZSK|WPY|PAR|SMK|ABC)"
                "\\s*\\*\\s*", "" },
    { "bank prefix again", "^(?:POS|EFTPOS)\\s+", "" },
    { "wallet again", "^(?:SQ|TST|PAYPAL|PP|GOOGLE)\\s*\\*\\s*", "" },
    /* Chains whose card descriptor is not their name, once the bank's and
     * the wallets' prefixes are gone ("PURCHASE WM SUPERCENTER #1700"),
     * and before a short code's star is taken for a processor's ("HLU *"). */
    { "walmart", "^(?:WM SUPERCENTER|WAL-?MART|WALMART)\\b.*$", "Walmart" },
    { "cvs", "^CVS\\s*/?\\s*PHARMACY\\b.*$", "CVS" },
    { "costco", "^COSTCO\\s+(?:WHSE|WHOLESALE|GASOLINE|GAS)\\b.*$", "Costco" },
    { "whole foods", "^(?:WHOLEFDS|WHOLE FOODS)\\b.*$", "Whole Foods" },
    { "at&t", "^(?:ATT\\s*\\*|AT&T\\b).*$", "AT&T" },
    { "hulu", "^HLU\\s*\\*.*$", "Hulu" },
    { "tj maxx", "^T\\.?J\\.?\\s?MAXX\\b.*$", "TJ Maxx" },
    /* Any other processor's short code before a star ("IN *", "TEZ*"); a
     * longer word before a star is the brand, and what follows it the
     * order reference ("Kindle Svcs*NH00P9HF1"). */
    { "processor code", "^[A-Z]{2,3}\\s?\\*\\s?(?=\\S)", "" },
    { "brand then reference", "^([A-Z][A-Z0-9 .'&/-]{3,}?)\\s?\\*(?!\\*)\\s?\\S.*$", "$1" },
    /* A bank that pads the name to a fixed width puts the location after
     * the padding: what follows two spaces is not the merchant. */
    { "fixed-width location", "^(.{3,}?\\S)\\s{2,}.*$", "$1" },
    /* What an ACH or card network adds after the payee's name. */
    { "ach words", "\\s+(?:DEBIT CRD ACH TRAN|FUNDS TRANSFER|AUTO-?PAY|AUTO PAY|BILL\\s?PAY(?:MENT)?|PAYMENTREC|"
                   "CREDIT CARD PAYMENT|CREDIT CRD EPAY|DIRECT DEP|DIR DEP|RECURRING PAY(?:MENT)?|ON-?LINE|"
                   "\\(ONLINE|EPAY|WEB PYMT|ACH (?:DEBIT|CREDIT|PMT)|DIRECT DEBIT|BPAY)\\b.*$", "" },
    /* URLs down to their brand. */
    { "url", "\\b(?:HTTPS?://)?(?:WWW\\.)?([A-Z0-9][A-Z0-9-]*)\\.(?:COM|NET|ORG|CO|IO|TV|FM|ME|APP)"
             "(?:\\.[A-Z]{2})?(?:/\\S*)?", "$1" },
    /* A store number, or a number before a location that ends in a
     * region code, ends the name: what follows is where the shop is. */
    { "store number then location", "(?<=\\S)\\s*#\\s*\\d+\\b.*$", "" },
    { "number then location", "^(.*?\\S)\\s+(?:(?:STORE|STR|NO\\.?)\\s*)?\\d{2,}\\b(?=.*\\s" REGION "\\b).*$", "$1" },
    /* Numbers that are not the merchant's. */
    { "phone", "(?:\\+?1[-. ]?)?\\(?\\b\\d{3}\\)?[-. ]\\d{3}[-. ]?\\d{4}\\b", " " },
    { "date", "\\b\\d{1,4}[/.-]\\d{1,2}(?:[/.-]\\d{2,4})?\\b", " " },
    { "time", "\\b\\d{1,2}:\\d{2}(?::\\d{2})?(?:\\s*[AP]M)?\\b", " " },
    { "card mask", "[X*#]{3,}[X*#\\d]*", " " },
    { "card number", "\\bCARD\\s*(?:NO\\.?|NUMBER|#)?\\s*\\d{4}\\b", " " },
    { "reference", "\\b(?:REF|REFERENCE|TRACE|CONF|AUTH|TRAN|TXN|ORDER|INV|ID|PPD ID|WEB ID)\\s*(?:NO\\.?|NUMBER)?"
                   "\\s*[#:.]?\\s*[A-Z0-9-]*\\d[A-Z0-9-]*", " " },
    { "store number", "(?:\\b(?:STORE|STR|STO|SHOP|TERMINAL|TERM|NO|UNIT|LOC)\\.?\\s*)?#\\s*\\d+|"
                      "\\b(?:STORE|STR|TERMINAL|TERM)\\s*\\d+", " " },
    { "long number", "(?<![A-Z0-9])[A-Z]{0,3}\\d{3,}[A-Z0-9]*\\b|\\b[A-Z0-9]*\\d[A-Z]*\\d[A-Z]*\\d[A-Z0-9]*\\b", " " },
    { "starred detail", "\\S*\\*\\*\\S*\\*\\*\\S*", " " },
    { "stars", "\\*+", " " },
    /* The trailing location: country, region, city (twice: "CA US"). */
    { "country", "\\s+" COUNTRY "\\s*$", "" },
    { "region", "\\s+" REGION "\\s*$", "" },
    { "country again", "\\s+" COUNTRY "\\s*$", "" },
    { "city", "(?<=\\S)\\s+" CITY "\\s*$", "" },
    /* A URL the bank cut short, run together ("INSTACART HTTPSINSTACAR"). */
    { "cut url", "(?<=\\S)\\s+(?:HTTPS?|WWW)[A-Z0-9.]*\\s*$", "" },
    { "trailing short number", "\\s+\\d{1,2}\\s*$", "" },
    /* Legal forms, and once more for "PTY LTD" after "CO". */
    { "legal form", "[\\s,]+(?:L\\.?L\\.?C\\.?|INC\\.?|INCORPORATED|LTD\\.?|LIMITED|GMBH|B\\.V\\.?|BV|N\\.V\\.?|NV|"
                    "CORP\\.?|CORPORATION|CO\\.?|PLC|PTY\\.?(?:\\s+LTD\\.?)?|S\\.?A\\.?|AG|SARL|S\\.?R\\.?L\\.?|"
                    "OY|AB|KG|LLP|LP)\\s*$", "" },
    { "legal form again", "[\\s,]+(?:L\\.?L\\.?C\\.?|INC\\.?|LTD\\.?|GMBH|CO\\.?|CORP\\.?|PTY)\\s*$", "" },
    /* Separators left at the ends, and runs of spaces. */
    { "ends", "^[\\s\\-*#.,:;/|_]+|[\\s\\-*#.,:;/|_(]+$", "" },
    { "spaces", "\\s{2,}", " " },
};
#define N_PATTERNS (sizeof PATTERNS / sizeof PATTERNS[0])

struct merchant_cleaner {
    pcre2_code *code[N_PATTERNS];
    pcre2_match_data *match;
};

void merchant_cleaner_free(struct merchant_cleaner *c)
{
    size_t i;

    if (c == NULL)
        return;
    for (i = 0; i < N_PATTERNS; i++)
        pcre2_code_free(c->code[i]);
    pcre2_match_data_free(c->match);
    free(c);
}

struct merchant_cleaner *merchant_cleaner_new(int jit)
{
    struct merchant_cleaner *c = calloc(1, sizeof *c);
    size_t i;
    int errcode;
    PCRE2_SIZE erroff;

    if (c == NULL)
        return NULL;
    for (i = 0; i < N_PATTERNS; i++) {
        c->code[i] = pcre2_compile((PCRE2_SPTR)PATTERNS[i].pattern, PCRE2_ZERO_TERMINATED,
                                   PCRE2_CASELESS | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &errcode,
                                   &erroff, NULL);
        /* The patterns are fixed: a failure here is out of memory. */
        if (c->code[i] == NULL)
            goto fail;
        /* JIT is an optimisation: the interpreter gives the same
         * answers, and where the platform has no JIT (or memory for it
         * runs out) the patterns run interpreted. */
        if (jit)
            pcre2_jit_compile(c->code[i], PCRE2_JIT_COMPLETE);
    }
    if ((c->match = pcre2_match_data_create(16, NULL)) == NULL)
        goto fail;
    return c;
fail:
    merchant_cleaner_free(c);
    return NULL;
}

void merchant_key(const char *name, char *out)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t n = 0;

    for (; *s && n + 1 < MERCHANT_CLEAN_MAX; s++)
        if (ascii_alpha(*s) || ascii_digit(*s) || *s >= 0x80)
            out[n++] = (char)ascii_lower(*s);
    out[n] = '\0';
}

/* Short words written lower case inside a name ("Bank of America"). */
static int minor_word(const char *w, size_t n)
{
    static const char *const minor[] = { "a", "an", "of", "and", "the", "to", "in", "de", "la", "du", "des", "at", "on", "for", NULL };
    size_t i;

    for (i = 0; minor[i]; i++)
        if (strlen(minor[i]) == n && strncasecmp(minor[i], w, n) == 0)
            return 1;
    return 0;
}

/* A word the bank wrote in one case gets a readable one: "COFFEE" ->
 * "Coffee", "ÉTIENNE" -> "Étienne", but a short word without a vowel is
 * an initialism ("CVS", "BP", "KFC") and stays upper case; a word written
 * in mixed case ("iTunes", "McDonald's", "Étienne") is the brand's own
 * spelling and is kept. */
static void readable_word(char *w, size_t n, int first)
{
    size_t i, f = n, letters = 0, upper = 0, lower = 0, other = 0, vowels = 0;

    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)w[i];

        if (ascii_alpha(ch) || ch >= 0x80) {
            if (f == n)
                f = i;
            if ((ch & 0xC0) != 0x80)
                letters++;
        }
        if (ascii_alpha(ch)) {
            upper += ch >= 'A' && ch <= 'Z';
            lower += ch >= 'a' && ch <= 'z';
            vowels += strchr("aeiouyAEIOUY", ch) != NULL;
        } else if (ch >= 0x80) {
            other++;
            vowels++;
        }
    }
    if (letters == 0 || (upper && lower) || (lower && other))
        return;
    if (vowels == 0 && letters <= 4) {
        for (i = 0; i < n; i++)
            w[i] = (char)ascii_upper((unsigned char)w[i]);
        return;
    }
    {
        char save = w[n];

        w[n] = '\0';
        if (!first && minor_word(w, n)) {
            utf8_lower(w);
            w[n] = save;
            return;
        }
        /* Lower all but the first letter, which is upper case (ASCII) or
         * left as the bank wrote it. */
        {
            size_t len = utf8_len((const unsigned char *)w + f, (const unsigned char *)w + n);

            utf8_lower(w + f + (len ? len : 1));
        }
        w[n] = save;
    }
    w[f] = (char)ascii_upper((unsigned char)w[f]);
    /* And the first letter after a hyphen ("7-Eleven"). */
    for (i = f; i + 1 < n; i++)
        if (w[i] == '-')
            w[i + 1] = (char)ascii_upper((unsigned char)w[i + 1]);
}

static void readable_case(char *s)
{
    size_t i = 0, start, n = strlen(s);
    int first = 1;

    /* A name of one short word is an initialism ("HEB", "BP"). */
    if (n <= 3 && strchr(s, ' ') == NULL) {
        for (i = 0; i < n; i++)
            s[i] = (char)ascii_upper((unsigned char)s[i]);
        return;
    }

    while (s[i]) {
        while (s[i] == ' ')
            i++;
        start = i;
        while (s[i] && s[i] != ' ')
            i++;
        if (i > start) {
            readable_word(s + start, i - start, first);
            first = 0;
        }
    }
}

int merchant_clean(struct merchant_cleaner *c, const char *raw, char *name, char *key)
{
    char buf[2][2 * MERCHANT_CLEAN_MAX];
    size_t len, i;
    int cur = 0, letters = 0;

    name[0] = '\0';
    if (key)
        key[0] = '\0';
    len = strlen(raw);
    if (len >= MERCHANT_CLEAN_MAX)
        len = MERCHANT_CLEAN_MAX - 1;
    memcpy(buf[0], raw, len);
    buf[0][len] = '\0';
    for (i = 0; i < len; i++)
        if (ascii_space((unsigned char)buf[0][i]))
            buf[0][i] = ' ';
    for (i = 0; i < N_PATTERNS; i++) {
        PCRE2_SIZE out = sizeof buf[0];
        int rc = pcre2_substitute(c->code[i], (PCRE2_SPTR)buf[cur], len, 0, PCRE2_SUBSTITUTE_GLOBAL,
                                  c->match, NULL, (PCRE2_SPTR)PATTERNS[i].replace, PCRE2_ZERO_TERMINATED,
                                  (PCRE2_UCHAR *)buf[!cur], &out);

        if (rc == 0)
            continue;
        if (rc < 0) {
            /* A name longer than the room (only the brand rewrites grow
             * text) skips the pattern; anything else is out of memory. */
            if (rc == PCRE2_ERROR_NOMEMORY)
                continue;
            if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT)
                continue;
            return -1;
        }
        cur = !cur;
        len = out;
    }
    if (len >= MERCHANT_CLEAN_MAX)
        len = MERCHANT_CLEAN_MAX - 1;
    buf[cur][len] = '\0';
    for (i = 0; i < len; i++)
        letters += ascii_alpha((unsigned char)buf[cur][i]) || (unsigned char)buf[cur][i] >= 0x80;
    if (letters == 0)
        return 0;
    readable_case(buf[cur]);
    memcpy(name, buf[cur], len + 1);
    if (key)
        merchant_key(name, key);
    return 1;
}
