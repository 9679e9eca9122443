// What a first-time catalogue search costs at the SQLite level, phase by
// phase (document counts, ranking, page rows), in thread CPU time: the
// statements and the ranking function of CatalogStore.ranking and
// CountedBM25, on a file seeded by scripts/seed-scale.sh, with queries
// drawn as bench/search.lua draws them (one or two name words, the last a
// prefix, 30 % of the time cut short). See docs/catalog-client.md.
//
//   cc -O2 -o /tmp/search_cost bench/search_cost.c -lsqlite3 -lm
//   /tmp/search_cost DB TERMS QUERIES [MAX_RANKED=1000] [WARM=1]
//
// WARM=1 runs the queries once before measuring them (every count known);
// 0 measures them cold. Environment: SINGLE=1 ranks a one-word query
// without counting (the catalogue's rule now), otherwise every phrase is
// counted; PRAGMA="PRAGMA …" runs on the connection first; NOFN=1 walks
// the matches without the ranking function; CCAP=1 counts at most 10,000
// documents a phrase; PHRASEFIRST=1 reads positions with xPhraseFirst
// instead of xInst; SLOW=µs prints every query whose ranking took longer.
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

static double now(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
static void rank_fn(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int n, sqlite3_value **v){
  int cols=api->xColumnCount(fts), ph=api->xPhraseCount(fts);
  sqlite3_int64 rows; int inst; api->xRowCount(fts,&rows); if(!getenv("PHRASEFIRST")) api->xInstCount(fts,&inst); else inst=0;
  double f[64]={0};
  if(getenv("PHRASEFIRST")){ for(int p=0;p<ph;p++){ Fts5PhraseIter it; int c,o; api->xPhraseFirst(fts,p,&it,&c,&o); while(c>=0){ f[p]+=sqlite3_value_double(v[c]); api->xPhraseNext(fts,&it,&c,&o);} } }
  else for(int i=0;i<inst;i++){int p,c,o; if(api->xInst(fts,i,&p,&c,&o)==0) f[p]+=sqlite3_value_double(v[c]);}
  double s=0; for(int p=0;p<ph;p++){ if(f[p]<=0)continue; double d=(double)sqlite3_value_int64(v[cols+p]);
    double idf=log((rows-d+0.5)/(d+0.5)); if(idf<1e-6)idf=1e-6; if(d<0) idf=1; s+=idf*f[p]*2.2/(f[p]+1.2);}
  sqlite3_result_double(ctx,-s);
}
static void reg(sqlite3*db){sqlite3_stmt*s;fts5_api*api=0;sqlite3_prepare_v2(db,"SELECT fts5(?1)",-1,&s,0);
  sqlite3_bind_pointer(s,1,&api,"fts5_api_ptr",0);sqlite3_step(s);sqlite3_finalize(s);
  api->xCreateFunction(api,"bm25_with_counts",0,rank_fn,0);}
static char *terms[100000]; static int nterms;
static unsigned long long rs=12345; static double rnd(void){rs^=rs<<13;rs^=rs>>7;rs^=rs<<17;return (rs>>11)*(1.0/9007199254740992.0);}
static int ri(int a,int b){return a+(int)(rnd()*(b-a+1));}
typedef struct{double r;sqlite3_int64 id;}M;
static int cmpm(const void*a,const void*b){const M*x=a,*y=b; if(x->r<y->r)return -1; if(x->r>y->r)return 1; return x->id<y->id?-1:x->id>y->id;}
static int cmpd(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
// count cache
#define CC 65536
static char *ck[CC]; static long cv[CC];
static unsigned h(const char*s){unsigned x=2166136261u;while(*s)x=(x^*s++)*16777619u;return x;}
static long *cget(const char*k){unsigned i=h(k)%CC;while(ck[i]){if(!strcmp(ck[i],k))return &cv[i];i=(i+1)%CC;}return 0;}
static void cput(const char*k,long v){unsigned i=h(k)%CC;while(ck[i])i=(i+1)%CC;ck[i]=strdup(k);cv[i]=v;}
int main(int argc,char**argv){
  const char*db_path=argv[1]; int nq=atoi(argv[3]); int cap=argc>4?atoi(argv[4]):1000; int warm=argc>5?atoi(argv[5]):1;
  FILE*f=fopen(argv[2],"r"); char line[256]; while(fgets(line,256,f)){line[strcspn(line,"\n")]=0; terms[nterms++]=strdup(line);} fclose(f);
  sqlite3*db; sqlite3_open_v2(db_path,&db,SQLITE_OPEN_READONLY,0); reg(db); if(getenv("PRAGMA")) sqlite3_exec(db,getenv("PRAGMA"),0,0,0);
  sqlite3_stmt *cnt,*pg; sqlite3_prepare_v2(db,getenv("CCAP") ? "SELECT count(*) FROM (SELECT 1 FROM products_search WHERE products_search MATCH ? LIMIT 10000)" : "SELECT count(*) FROM products_search WHERE products_search MATCH ?",-1,&cnt,0);
  sqlite3_prepare_v2(db,"SELECT id, sku, name, description, price_amount, price_currency, stock, active, version FROM products WHERE rowid = ?",-1,&pg,0);
  char **qs=calloc(nq,sizeof(char*)); long *qm=calloc(nq,sizeof(long)); double *tc=calloc(nq,8),*tr=calloc(nq,8),*tp=calloc(nq,8),*tt=calloc(nq,8); long totalm=0; int capped=0;
  M *m=malloc(sizeof(M)*200000);
  for(int pass=0;pass<1+warm;pass++){
  rs=12345;
  for(int q=0;q<nq;q++){
    char w1[128],w2[128]; const char*last=terms[ri(0,nterms-1)]; int L=strlen(last);
    if(rnd()<0.3){int k=ri(3,L>3?L:3); if(k>L)k=L; memcpy(w2,last,k); w2[k]=0;} else strcpy(w2,last);
    int two=rnd()<0.5; if(two) strcpy(w1,terms[ri(0,nterms-1)]);
    char ph[2][160]; int np=0; if(two) sprintf(ph[np++],"\"%s\"",w1); sprintf(ph[np++],"\"%s\"*",w2);
    char match[400]; if(np==2) sprintf(match,"%s %s",ph[0],ph[1]); else strcpy(match,ph[0]);
    double t0=now(); long c[2]; 
    int single = getenv("SINGLE") && np==1; long known=-2;
    if(single){ long*cp=cget(ph[0]); known = cp? *cp : -2; c[0]=-1; }
    else for(int i=0;i<np;i++){ long*cp=cget(ph[i]); if(cp){c[i]=*cp;continue;}
      sqlite3_bind_text(cnt,1,ph[i],-1,SQLITE_STATIC); sqlite3_step(cnt); c[i]=sqlite3_column_int64(cnt,0); sqlite3_reset(cnt); cput(ph[i],c[i]); }
    double t1=now();
    long mn=c[0]; for(int i=1;i<np;i++) if(c[i]<mn) mn=c[i];
    int any=1; for(int i=0;i<np;i++) if(c[i]==0) any=0;
    if(single){ mn = known>=0 ? known : 1L<<40; any = known!=0; }
    int nm=0;
    if(any){
      char sql[600]; if(getenv("NOFN")) sprintf(sql,"SELECT rowid, 0.0%s FROM products_search WHERE products_search MATCH ?1 ORDER BY rowid %s LIMIT ?2", np==2?"+?3+?4":"+?3", mn<=cap?"ASC":"DESC"); else sprintf(sql,"SELECT rowid, bm25_with_counts(products_search, 10.0, 1.0, 5.0%s) FROM products_search WHERE products_search MATCH ?1 ORDER BY rowid %s LIMIT ?2",
        np==2?", ?3, ?4":", ?3", mn<=cap?"ASC":"DESC");
      sqlite3_stmt*r; sqlite3_prepare_v2(db,sql,-1,&r,0); sqlite3_bind_text(r,1,match,-1,SQLITE_STATIC); sqlite3_bind_int(r,2,cap);
      for(int i=0;i<np;i++) sqlite3_bind_int64(r,3+i,c[i]);
      while(sqlite3_step(r)==SQLITE_ROW){m[nm].id=sqlite3_column_int64(r,0);m[nm].r=sqlite3_column_double(r,1);nm++;}
      sqlite3_finalize(r); qsort(m,nm,sizeof(M),cmpm);
      if(single && known<0 && nm<cap) cput(ph[0],nm);
    }
    double t2=now();
    sqlite3_exec(db,"BEGIN",0,0,0);
    for(int i=0;i<nm&&i<21;i++){ sqlite3_bind_int64(pg,1,m[i].id); if(sqlite3_step(pg)==SQLITE_ROW){ for(int k=0;k<9;k++) (void)sqlite3_column_text(pg,k);} sqlite3_reset(pg);}
    sqlite3_exec(db,"COMMIT",0,0,0);
    double t3=now();
    if(pass==warm){qs[q]=strdup(match); qm[q]=mn*100000+nm; tc[q]=t1-t0;tr[q]=t2-t1;tp[q]=t3-t2;tt[q]=t3-t0; totalm+=nm; if(nm>=cap)capped++;}
  }}
  double s[4]={0}; for(int q=0;q<nq;q++){s[0]+=tc[q];s[1]+=tr[q];s[2]+=tp[q];s[3]+=tt[q];}
  if(getenv("SLOW")){ double lim=atof(getenv("SLOW")); for(int q=0;q<nq;q++) if(tr[q]>lim) printf("slow %8.0f us rank %6.0f page  min-count %ld matches %ld  %s\n", tr[q], tp[q], qm[q]/100000, qm[q]%100000, qs[q]); }
  qsort(tr,nq,8,cmpd); qsort(tt,nq,8,cmpd);
  printf("queries %d cap %d warm %d: mean count %.1f us, rank %.1f us (p50 %.0f p99 %.0f), page %.1f us, total %.1f us (p50 %.0f p99 %.0f); mean matches %.0f, capped %d\n",
    nq,cap,warm,s[0]/nq,s[1]/nq,tr[nq/2],tr[nq*99/100],s[2]/nq,s[3]/nq,tt[nq/2],tt[nq*99/100],(double)totalm/nq,capped);
  return 0;
}
