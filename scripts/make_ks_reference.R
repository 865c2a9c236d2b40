# Reference plug-in bandwidths from R's ks package for tests/test_bandwidth_plugin.py.
#
# Run from the repository root:  Rscript scripts/make_ks_reference.R
# Writes tests/data/ks_reference.json with the samples themselves (so the test never needs R),
# the ks version, and for every sample:
#   univariate: ks::hpi(x)  (nstage = 2; for deriv.order = 0 ks calls KernSmooth::dpik, which
#               always bins on 401 points, whatever `binned` says)
#   pairs:      sqrt(diag(ks::Hpi.diag(cbind(x, y), binned = FALSE)))  (pilot "samse", nstage 2)
#               and, for information, the default call (ks bins pairs when n > 500).
suppressPackageStartupMessages(library(ks))

set.seed(20240517)
kinds <- list(
  normal = function(n) rnorm(n, 2, 3),
  bimodal = function(n) ifelse(runif(n) < 0.4, rnorm(n, -3, 0.6), rnorm(n, 2, 1)),
  skewed = function(n) rlnorm(n, 0, 0.8),
  heavy = function(n) rt(n, df = 2)
)
sizes <- c(50, 200, 1000)

univariate <- list()
for (kind in names(kinds)) for (n in sizes) {
  x <- signif(kinds[[kind]](n), 12)  # 12 digits: the JSON text is the exact sample
  univariate[[length(univariate) + 1]] <- list(
    kind = kind, n = n, x = x,
    hpi = hpi(x, nstage = 2)
  )
}

pair_samples <- list(
  normal_rho06 = function(n) {
    z1 <- rnorm(n); z2 <- rnorm(n)
    cbind(1 + 2 * z1, -1 + 0.5 * (0.6 * z1 + 0.8 * z2))
  },
  bimodal_skewed = function(n) {
    a <- ifelse(runif(n) < 0.5, rnorm(n, -2, 0.5), rnorm(n, 2, 0.5))
    cbind(a, exp(0.3 * a + rnorm(n, 0, 0.5)))
  },
  heavy_negcorr = function(n) {
    t1 <- rt(n, df = 3)
    cbind(t1, -0.7 * t1 + rnorm(n))
  },
  independent = function(n) cbind(rnorm(n), rexp(n))
)

pairs <- list()
for (kind in names(pair_samples)) for (n in sizes) {
  X <- signif(pair_samples[[kind]](n), 12)
  H <- Hpi.diag(X, binned = FALSE)
  Hdef <- Hpi.diag(X)
  pairs[[length(pairs) + 1]] <- list(
    kind = kind, n = n, x = X[, 1], y = X[, 2],
    hpi_diag_unbinned = sqrt(diag(H)),
    hpi_diag_default = sqrt(diag(Hdef)),
    default_binned = n > 500
  )
}

out <- list(
  generator = "scripts/make_ks_reference.R",
  ks_version = as.character(packageVersion("ks")),
  kernsmooth_version = as.character(packageVersion("KernSmooth")),
  r_version = R.version.string,
  univariate = univariate,
  pairs = pairs
)
jsonlite::write_json(out, "tests/data/ks_reference.json", digits = I(17), auto_unbox = TRUE,
                     pretty = FALSE)
cat("wrote tests/data/ks_reference.json\n")
