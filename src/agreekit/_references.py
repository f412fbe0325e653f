"""The works agreekit cites, in one list: authors, year, title, venue and DOI.

Pure data (no agreekit imports; the bottom layer of the import contract).  Every DOI here was confirmed
from a source that shows it next to the work's title, authors and venue (a publisher's or indexer's page,
or a bibliography in a public repository); a work whose DOI could not be confirmed, or that has none
(a book without one, an arXiv preprint, a JMLR or ACL Anthology paper), carries ``doi=None`` and the
reason in ``no_doi``.

``cites`` are regular expressions that recognise a citation of the work in a docstring or a documentation
page (its white space collapsed to single spaces): a distinctive title fragment (``(?i)``: any case) or
an "Authors year" form (case-sensitive, so that the word "loader" does not cite C. Loader).
``tests/test_references.py`` checks that wherever a docstring's References section or a guide page cites
a work, its DOI (or, without one, its ``identifier`` such as an arXiv number) is written there too, in
the form ``:doi:`10.xxxx/...``` (docstrings) or ``{doi}`10.xxxx/...``` (Markdown pages).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Work:
    """One cited work."""

    key: str
    authors: str
    year: int
    title: str | None
    venue: str
    doi: str | None
    cites: tuple[str, ...]
    no_doi: str | None = None
    #: what a citation carries instead of a DOI (an arXiv number), checked like a DOI
    identifier: str | None = None

    def cited_in(self, text: str) -> bool:
        """Whether ``text`` cites this work (one of :attr:`cites` matches)."""
        flat = re.sub(r"\s+", " ", text)
        return any(re.search(p, flat) for p in self.cites)


#: a DOI as Crossref and DataCite issue them: "10.", a registrant code, "/", a suffix without spaces
DOI_PATTERN = re.compile(r"^10\.\d{4,9}/[^\s`'\"<>]+$")

WORKS: tuple[Work, ...] = (
    # --- the four papers behind the areas ---------------------------------------------------------------
    Work(
        "lombardo2025",
        "P. Lombardo",
        2025,
        "Standardization of Weighted Ranking Correlation Coefficients",
        "arXiv preprint",
        None,
        (r"(?i)Standardization of Weighted Ranking Correlation", r"\bLombardo\b"),
        no_doi="an arXiv preprint: cited by its arXiv number",
        identifier="arXiv:2504.08428",
    ),
    Work(
        "amodio2016",
        "S. Amodio, A. D'Ambrosio, R. Siciliano",
        2016,
        "Accurate algorithms for identifying the median ranking when dealing with weak and partial rankings "
        "under the Kemeny axiomatic approach",
        "European Journal of Operational Research 249(2), 667-676",
        "10.1016/j.ejor.2015.08.048",
        (r"\bAmodio\b", r"(?i)identifying the median ranking"),
    ),
    Work(
        "sakai2006",
        "T. Sakai",
        2006,
        "Evaluating evaluation metrics based on the bootstrap",
        "SIGIR 2006, 525-532",
        "10.1145/1148170.1148261",
        (r"\bSakai\b", r"(?i)Evaluating evaluation metrics based on the bootstrap"),
    ),
    Work(
        "rabbany2015",
        "R. Rabbany, O. R. Zaïane",
        2015,
        "Generalization of clustering agreements and distances for overlapping clusters and network communities",
        "Data Mining and Knowledge Discovery 29(5), 1458-1485",
        "10.1007/s10618-015-0426-x",
        (r"\bRabbany\b", r"(?i)Generalization of clustering agreements"),
    ),
    # --- ranked lists ---------------------------------------------------------------------------------
    Work(
        "webber2010",
        "W. Webber, A. Moffat, J. Zobel",
        2010,
        "A similarity measure for indefinite rankings",
        "ACM Transactions on Information Systems 28(4)",
        "10.1145/1852102.1852106",
        (r"\bWebber\b", r"(?i)similarity measure for indefinite rankings"),
    ),
    Work(
        "corsi2024",
        "M. Corsi, J. Urbano",
        2024,
        "The Treatment of Ties in Rank-Biased Overlap",
        "SIGIR 2024",
        "10.1145/3626772.3657700",
        (r"\bCorsi\b", r"(?i)Ties in Rank-Biased Overlap"),
    ),
    Work(
        "yilmaz2008",
        "E. Yilmaz, J. A. Aslam, S. Robertson",
        2008,
        "A new rank correlation coefficient for information retrieval",
        "SIGIR 2008",
        "10.1145/1390334.1390435",
        (r"\bYilmaz\b", r"(?i)new rank correlation coefficient for information retrieval"),
    ),
    Work(
        "urbano2017",
        "J. Urbano, M. Marrero",
        2017,
        "The Treatment of Ties in AP Correlation",
        "ICTIR 2017",
        "10.1145/3121050.3121106",
        (r"\bMarrero\b", r"(?i)Ties in AP Correlation"),
    ),
    Work(
        "fisher1932",
        "R. A. Fisher",
        1932,
        "Statistical Methods for Research Workers",
        "Oliver and Boyd (4th ed.)",
        None,
        (r"(?i)Statistical Methods for Research Workers",),
        no_doi="a book edition without a DOI",
    ),
    # --- p-values -------------------------------------------------------------------------------------
    Work(
        "besag1991",
        "J. Besag, P. Clifford",
        1991,
        "Sequential Monte Carlo p-values",
        "Biometrika 78(2), 301-304",
        "10.1093/biomet/78.2.301",
        (r"\bBesag\b", r"(?i)Sequential Monte Carlo p-values"),
    ),
    Work(
        "phipson2010",
        "B. Phipson, G. K. Smyth",
        2010,
        "Permutation P-values Should Never Be Zero: Calculating Exact P-values When Permutations Are Randomly Drawn",
        "Statistical Applications in Genetics and Molecular Biology 9(1), Article 39",
        "10.2202/1544-6115.1585",
        (r"\bPhipson\b", r"(?i)P-values Should Never Be Zero"),
    ),
    # --- intervals ------------------------------------------------------------------------------------
    Work(
        "fieller1957",
        "E. C. Fieller, H. O. Hartley, E. S. Pearson",
        1957,
        "Tests for rank correlation coefficients. I",
        "Biometrika 44(3-4), 470-481",
        "10.1093/biomet/44.3-4.470",
        (r"\bFieller\b", r"(?i)Tests for rank correlation coefficients"),
    ),
    Work(
        "bonett2000",
        "D. G. Bonett, T. A. Wright",
        2000,
        "Sample size requirements for estimating Pearson, Kendall and Spearman correlations",
        "Psychometrika 65(1), 23-28",
        "10.1007/BF02294183",
        (r"\bBonett\b", r"(?i)Sample size requirements for estimating Pearson"),
    ),
    Work(
        "daniels1947",
        "H. E. Daniels, M. G. Kendall",
        1947,
        "The significance of rank correlations where parental correlation exists",
        "Biometrika 34(3-4), 197-208",
        "10.1093/biomet/34.3-4.197",
        (r"\bDaniels (?:&|and) Kendall\b", r"(?i)where parental correlation exists"),
    ),
    Work(
        "cliff1991",
        "N. Cliff, V. Charlin",
        1991,
        "Variances and covariances of Kendall's tau and their estimation",
        "Multivariate Behavioral Research 26, 693-707",
        None,
        (r"\bCharlin\b", r"(?i)Variances and covariances of Kendall"),
        no_doi="not confirmed from a source we could read",
    ),
    Work(
        "long1997",
        "J. D. Long, N. Cliff",
        1997,
        "Confidence intervals for Kendall's tau",
        "British Journal of Mathematical and Statistical Psychology 50(1), 31-41",
        "10.1111/j.2044-8317.1997.tb01100.x",
        (r"\bLong (?:&|and) Cliff\b", r"(?i)Confidence intervals for Kendall's tau"),
    ),
    Work(
        "efron1987",
        "B. Efron",
        1987,
        "Better bootstrap confidence intervals",
        "Journal of the American Statistical Association 82(397), 171-185",
        "10.1080/01621459.1987.10478410",
        (r"\bEfron,? (?:B\.,? )?\(?1987\b", r"(?i)Better bootstrap confidence intervals"),
    ),
    Work(
        "efron1981",
        "B. Efron, C. Stein",
        1981,
        "The jackknife estimate of variance",
        "The Annals of Statistics 9(3), 586-596",
        "10.1214/aos/1176345462",
        (r"\bEfron (?:&|and) (?:C\. )?Stein\b", r"(?i)jackknife estimate of variance"),
    ),
    Work(
        "bishara2017",
        "A. J. Bishara, J. B. Hittner",
        2017,
        "Confidence intervals for correlations when data are not normal",
        "Behavior Research Methods 49(1), 294-309",
        "10.3758/s13428-016-0702-8",
        (r"\bBishara\b", r"(?i)Confidence intervals for correlations when data are not normal"),
    ),
    # --- consensus, concordance, the bootstrap -------------------------------------------------------
    Work(
        "emond2002",
        "E. J. Emond, D. W. Mason",
        2002,
        "A new rank correlation coefficient with application to the consensus ranking problem",
        "Journal of Multi-Criteria Decision Analysis 11(1), 17-28",
        "10.1002/mcda.313",
        (r"\bEmond\b.{0,40}\b2002\b", r"(?i)application to the consensus ranking problem"),
    ),
    Work(
        "emond2000",
        "E. J. Emond, D. W. Mason",
        2000,
        None,
        "a report of the Operational Research Division, Department of National Defence Canada",
        None,
        (r"\bEmond\b.{0,40}\b2000\b",),
        no_doi="a government report without a DOI (the source of the Emond-Mason data set)",
    ),
    Work(
        "marden1996",
        "J. I. Marden",
        1996,
        "Analyzing and Modeling Rank Data",
        "Chapman & Hall",
        None,
        (r"\bMarden\b", r"(?i)Analyzing and Modeling Rank Data"),
        no_doi="a book (Chapman & Hall, 1995; CRC printing 1996) whose DOI could not be confirmed",
    ),
    Work(
        "kendall1939",
        "M. G. Kendall, B. Babington Smith",
        1939,
        "The problem of m rankings",
        "The Annals of Mathematical Statistics 10(3), 275-287",
        "10.1214/aoms/1177732186",
        (r"\bBabington Smith\b", r"(?i)problem of m rankings"),
    ),
    Work(
        "friedman1937",
        "M. Friedman",
        1937,
        "The use of ranks to avoid the assumption of normality implicit in the analysis of variance",
        "Journal of the American Statistical Association 32(200), 675-701",
        "10.1080/01621459.1937.10503522",
        (r"\bFriedman,? (?:M\.,? )?\(?1937\b", r"(?i)use of ranks to avoid the assumption of normality"),
    ),
    Work(
        "legendre2005",
        "P. Legendre",
        2005,
        "Species associations: the Kendall coefficient of concordance revisited",
        "Journal of Agricultural, Biological, and Environmental Statistics 10(2), 226-245",
        "10.1198/108571105X46642",
        (r"\bLegendre\b", r"(?i)Kendall coefficient of concordance revisited"),
    ),
    Work(
        "iman1987",
        "R. L. Iman, W. J. Conover",
        1987,
        "A measure of top-down correlation",
        "Technometrics 29(3), 351-357",
        "10.2307/1269344",
        (r"\bIman\b", r"(?i)measure of top-down correlation"),
    ),
    Work(
        "savage1956",
        "I. R. Savage",
        1956,
        "Contributions to the theory of rank order statistics: the two-sample case",
        "The Annals of Mathematical Statistics 27(3), 590-615",
        None,
        (r"\bSavage,? (?:I\. ?R\.,? )?\(?1956\b", r"(?i)theory of rank order statistics"),
        no_doi="not confirmed from a source we could read (JSTOR stable 2237370)",
    ),
    Work(
        "efron1993",
        "B. Efron, R. J. Tibshirani",
        1993,
        "An Introduction to the Bootstrap",
        "Chapman & Hall/CRC",
        "10.1201/9780429246593",
        (r"\bTibshirani\b", r"(?i)Introduction to the Bootstrap"),
    ),
    Work(
        "felsenstein1985",
        "J. Felsenstein",
        1985,
        "Confidence limits on phylogenies: an approach using the bootstrap",
        "Evolution 39(4), 783-791",
        "10.1111/j.1558-5646.1985.tb00420.x",
        (r"\bFelsenstein\b", r"(?i)Confidence limits on phylogenies"),
    ),
    # --- clustering -----------------------------------------------------------------------------------
    Work(
        "cover2006",
        "T. M. Cover, J. A. Thomas",
        2006,
        "Elements of Information Theory",
        "Wiley (2nd ed.)",
        "10.1002/047174882X",
        (r"(?i)Elements of Information Theory", r"\bCover (?:&|and) Thomas\b"),
    ),
    Work(
        "vinh2010",
        "N. X. Vinh, J. Epps, J. Bailey",
        2010,
        "Information theoretic measures for clusterings comparison: variants, properties, normalization and "
        "correction for chance",
        "Journal of Machine Learning Research 11, 2837-2854",
        None,
        (r"(?i)variants, properties, normalization and correction for chance", r"\bVinh et al\.,? \(?2010\b"),
        no_doi="JMLR papers have no DOI",
    ),
    Work(
        "vinh2009",
        "N. X. Vinh, J. Epps, J. Bailey",
        2009,
        "Information theoretic measures for clusterings comparison: is a correction for chance necessary?",
        "ICML 2009, 1073-1080",
        "10.1145/1553374.1553511",
        (r"(?i)is a correction for chance necessary",),
    ),
    Work(
        "loader2000",
        "C. Loader",
        2000,
        "Fast and accurate computation of binomial probabilities",
        "technical note",
        None,
        (r"\bLoader\b", r"(?i)Fast and accurate computation of binomial probabilities"),
        no_doi="an unpublished technical note",
    ),
    Work(
        "fowlkes1983",
        "E. B. Fowlkes, C. L. Mallows",
        1983,
        "A method for comparing two hierarchical clusterings",
        "Journal of the American Statistical Association 78(383), 553-569",
        "10.1080/01621459.1983.10478008",
        (r"\bFowlkes\b.{0,30}\b1983\b", r"(?i)method for comparing two hierarchical clusterings"),
    ),
    Work(
        "rosenberg2007",
        "A. Rosenberg, J. Hirschberg",
        2007,
        "V-measure: a conditional entropy-based external cluster evaluation measure",
        "EMNLP-CoNLL 2007, 410-420",
        None,
        (r"\bHirschberg\b", r"(?i)conditional entropy-based external cluster"),
        no_doi="ACL Anthology paper (D07-1043) without a DOI",
        identifier="D07-1043",
    ),
    Work(
        "lancichinetti2009njp",
        "A. Lancichinetti, S. Fortunato, J. Kertész",
        2009,
        "Detecting the overlapping and hierarchical community structure in complex networks",
        "New Journal of Physics 11, 033015",
        "10.1088/1367-2630/11/3/033015",
        (r"\bKert[eé]sz\b", r"(?i)overlapping and hierarchical community structure"),
    ),
    Work(
        "mcdaid2011",
        "A. F. McDaid, D. Greene, N. Hurley",
        2011,
        "Normalized mutual information to evaluate overlapping community finding algorithms",
        "arXiv preprint",
        None,
        (r"\bMcDaid\b", r"(?i)evaluate overlapping community finding algorithms"),
        no_doi="an arXiv preprint: cited by its arXiv number",
        identifier="arXiv:1110.2515",
    ),
    Work(
        "lancichinetti2008",
        "A. Lancichinetti, S. Fortunato, F. Radicchi",
        2008,
        "Benchmark graphs for testing community detection algorithms",
        "Physical Review E 78, 046110",
        "10.1103/PhysRevE.78.046110",
        (r"\bRadicchi\b", r"(?i)Benchmark graphs for testing community detection"),
    ),
    Work(
        "lancichinetti2009pre",
        "A. Lancichinetti, S. Fortunato",
        2009,
        "Benchmarks for testing community detection algorithms on directed and weighted graphs with overlapping "
        "communities",
        "Physical Review E 80, 016118",
        "10.1103/PhysRevE.80.016118",
        (r"\bLancichinetti (?:&|and) Fortunato,? \(?2009\b", r"(?i)directed and weighted graphs with overlapping"),
    ),
    # --- IR evaluation --------------------------------------------------------------------------------
    Work(
        "jarvelin2002",
        "K. Järvelin, J. Kekäläinen",
        2002,
        "Cumulated gain-based evaluation of IR techniques",
        "ACM Transactions on Information Systems 20(4), 422-446",
        "10.1145/582415.582418",
        (r"\bJ[äa]rvelin\b", r"(?i)Cumulated gain-based evaluation"),
    ),
    Work(
        "buckley2004",
        "C. Buckley, E. M. Voorhees",
        2004,
        "Retrieval evaluation with incomplete information",
        "SIGIR 2004, 25-32",
        "10.1145/1008992.1009000",
        (r"\bBuckley (?:&|and) Voorhees\b", r"(?i)Retrieval evaluation with incomplete information"),
    ),
    Work(
        "voorhees2000",
        "E. M. Voorhees",
        2000,
        "Variations in relevance judgments and the measurement of retrieval effectiveness",
        "Information Processing & Management 36(5), 697-716",
        "10.1016/S0306-4573(00)00010-8",
        (r"\bVoorhees,? \(?2000\b", r"(?i)Variations in relevance judgments"),
    ),
    Work(
        "urbano2019",
        "J. Urbano, H. Lima, A. Hanjalic",
        2019,
        "Statistical significance testing in information retrieval: an empirical analysis of type I, type II and "
        "type III errors",
        "SIGIR 2019, 505-514",
        "10.1145/3331184.3331259",
        (r"\bUrbano,? (?:J\.,? )?(?:et al\.|Lima)", r"(?i)Statistical significance testing in information retrieval"),
    ),
)

BY_KEY: dict[str, Work] = {w.key: w for w in WORKS}
